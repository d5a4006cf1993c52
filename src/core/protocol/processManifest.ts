// `kernel-runner-processes.json`: written by the runner at the root of a profile's output folder (and so of its
// archive), it says which output files are which process of the job and which devices each used. rocprofv3 writes
// one output set per process (`-o %pid%`: `<pid>_kernel_trace.csv`, ...), children included; a multi-GPU job
// (`MI300x8`) has one per rank. Readers group a profile's files by it. Pure: no Node imports.
//
// `rank` is the rank the process announced in its environment as rocpd recorded it (`rankInEnvironment`), null when
// nothing says; `devices` are the device indices of the GPU agents its dispatches (else
// copies) ran on, empty for a process without GPU work: the machine's numbering (HIP_VISIBLE_DEVICES) on a local
// runner, the job's own (0 .. n-1 of the GPUs it was given) under Slurm; `ppid`
// is null when no output records it (it is in rocpd databases only). `outputs` are paths relative to the manifest's
// folder, with `/` separators.
import { z } from './zod';

export const PROCESS_MANIFEST_NAME = 'kernel-runner-processes.json';

const processEntrySchema = z.object({
  pid: z.number().int().nonnegative(),
  ppid: z.number().int().nonnegative().nullable(),
  rank: z.number().int().nonnegative().nullable(),
  devices: z.array(z.number().int().nonnegative()),
  outputs: z.array(z.string().min(1)),
});

export const processManifestSchema = z.object({
  version: z.literal(1),
  /** A job has a handful of processes; a manifest listing more than this is not ours. */
  processes: z.array(processEntrySchema).max(4096),
});

export type ProcessEntry = z.infer<typeof processEntrySchema>;
export type ProcessManifest = z.infer<typeof processManifestSchema>;

/**
 * The environment variables a process's rank is read from, first found first: torchrun's global RANK, the MPI
 * launchers' (Open MPI, PMIx, MPICH and Cray MPICH, MVAPICH2), then torchrun's node-local LOCAL_RANK.
 */
const RANK_VARIABLES = [
  'RANK',
  'OMPI_COMM_WORLD_RANK',
  'PMIX_RANK',
  'PMI_RANK',
  'MV2_COMM_WORLD_RANK',
  'LOCAL_RANK',
] as const;

/** The rank in a process's environment as rocpd records it (`rocpd_info_process.environment`, JSON), else null. */
export function rankInEnvironment(environment: unknown): number | null {
  if (typeof environment !== 'string') return null;
  let env: unknown;
  try {
    env = JSON.parse(environment);
  } catch {
    return null;
  }
  if (!env || typeof env !== 'object') return null;
  for (const name of RANK_VARIABLES) {
    const value = (env as Record<string, unknown>)[name];
    if (typeof value === 'string' && /^\d{1,9}$/.test(value)) return Number(value);
  }
  return null;
}
