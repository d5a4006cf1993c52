// The processes of a multi-process profile: rocprofv3 writes one output set per process (`<hostname>/<pid>_...`,
// or a rocpd `<pid>_results.db`), and the runner may add `kernel-runner-processes.json` at the root saying which
// outputs are which process, its parent and its rank. Sets are grouped into processes here; ranks.ts turns them
// into the summary's per-rank section.
import type { BusyTracker } from './busy';
import { setKeyOf } from './classify';
import type { FileSource } from './sources';
import { RunTables } from './tables';
import {
  PROCESS_MANIFEST_NAME as MANIFEST_NAME,
  processManifestSchema,
  type ProcessManifest,
} from '../core/protocol/processManifest';

/** A manifest lists processes and file names: far below this. */
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

type ManifestProcess = ProcessManifest['processes'][number];

/** True for the runner's manifest at the root of the profile (a zip's or a folder's). */
export function isManifestPath(path: string): boolean {
  return (
    path === MANIFEST_NAME ||
    (path.endsWith(`/${MANIFEST_NAME}`) && path.indexOf('/') === path.length - MANIFEST_NAME.length - 1)
  );
}

/** The manifest, or why it cannot be used (the profile is then read from its file names, with a warning). */
export async function readManifest(file: FileSource): Promise<ProcessManifest | string> {
  if (file.size > MAX_MANIFEST_BYTES) return `${file.path}: ${file.size} bytes, over the ${MAX_MANIFEST_BYTES} read`;
  let json: unknown;
  try {
    json = JSON.parse((await file.readAll()).toString('utf8'));
  } catch (err) {
    return `${file.path}: not JSON (${(err as Error).message})`;
  }
  const parsed = processManifestSchema.safeParse(json);
  if (!parsed.success) return `${file.path}: not a version 1 process manifest (${parsed.error.issues[0]?.message})`;
  return parsed.data;
}

/** One profiled process: its tables (the sets of it, merged) and the files read for it. */
export interface ProfiledProcess {
  key: string;
  pid: number | null;
  host: string | null;
  tables: RunTables;
  /** Per set read, the busy time of its work per agent. */
  busy: Array<Map<string, BusyTracker>>;
  outputs: string[];
  manifest: ManifestProcess | null;
  /** The rank its files say: the MPI or torchrun rank in its rocpd environment, else a number in its output names. */
  fileRank: number | null;
  /** The rank its rocpd database's recorded environment announced. */
  envRank: number | null;
  /** The dispatch scopes (dispatchScopes.ts) of its sets read: where its counters are in the profile's table. */
  scopes: Set<number>;
}

/** Who a set read is: its pid and host, and the rank its database recorded (rocpd only). */
export interface SetProcess {
  pid: number | null;
  host: string | null;
  rank?: number | null;
}

/** Collects the sets read into processes: by the manifest's outputs, else the set's pid and host. */
export class ProcessGroups {
  private readonly byKey = new Map<string, ProfiledProcess>();
  private readonly byOutput = new Map<string, ManifestProcess[]>();

  constructor(readonly manifest: ProcessManifest | null) {
    for (const p of manifest?.processes ?? [])
      for (const o of p.outputs ?? []) this.byOutput.set(o, [...(this.byOutput.get(o) ?? []), p]);
  }

  /** A set read (its dispatches in scope `scope`): `setKey` when neither the manifest nor a pid names its process. */
  add(
    setKey: string,
    who: SetProcess,
    tables: RunTables,
    busy: Map<string, BusyTracker>,
    outputs: string[],
    scope: number,
  ): void {
    const { key, pid, listed } = this.identify(setKey, who, outputs);
    let p = this.byKey.get(key);
    if (!p) {
      p = {
        key,
        pid,
        host: who.host,
        tables: new RunTables(),
        busy: [],
        outputs: [],
        manifest: listed,
        fileRank: null,
        envRank: null,
        scopes: new Set(),
      };
      this.byKey.set(key, p);
    }
    p.scopes.add(scope);
    p.envRank ??= who.rank ?? null;
    tables.mergeInto(p.tables);
    p.busy.push(busy);
    p.outputs.push(...outputs);
  }

  /** The process a set belongs to: the manifest's entry listing one of its outputs or its pid, else its pid and host. */
  identify(
    setKey: string,
    who: { pid: number | null; host: string | null },
    outputs: readonly string[],
  ): { key: string; pid: number | null; listed: ManifestProcess | null } {
    // a merged database is the output of every process in it: the one of this pid
    const byOutputs = outputs.flatMap((o) => this.byOutput.get(o) ?? []);
    const listed = byOutputs.find((p) => p.pid === who.pid) ?? byOutputs[0] ?? this.listedPid(who.pid);
    const pid = listed?.pid ?? who.pid;
    const key = pid === null ? `set\u0000${setKey}` : `${who.host ?? ''}\u0000${pid}`;
    return { key, pid, listed: listed ?? null };
  }

  private listedPid(pid: number | null): ManifestProcess | undefined {
    return pid === null ? undefined : this.manifest?.processes.find((p) => p.pid === pid);
  }

  /**
   * Every process read, and the manifest's processes of which no file was read (listed, with no work; of the timing
   * pass `timingPass` when a counter run has several); the ones
   * the manifest does not list get the ranks their files say (`warnings`: why those were not taken).
   */
  all(warnings: string[] = [], timingPass: string | null = null): ProfiledProcess[] {
    const out = [...this.byKey.values()];
    assignFileRanks(
      out.filter((p) => p.manifest === null && p.tables.kernels.size > 0),
      warnings,
    );
    for (const m of this.manifest?.processes ?? []) {
      if (out.some((p) => p.pid === m.pid)) continue;
      // a counter run's other passes are the same processes again
      if (timingPass !== null && m.outputs.some((o) => passOfPath(o) !== timingPass)) continue;
      out.push({
        key: `manifest\u0000${m.pid}`,
        pid: m.pid,
        host: null,
        tables: new RunTables(),
        busy: [],
        outputs: [],
        manifest: m,
        fileRank: null,
        envRank: null,
        scopes: new Set(),
      });
    }
    return out;
  }
}

/**
 * A number in output names is taken for a rank below this many per process (and below 64 in any case): a job's
 * ranks are 0 .. size-1 and a profile of some of them still a narrow range; pids and job ids are larger.
 */
const NAMED_RANKS_PER_PROCESS = 8;
const MIN_NAMED_RANK_BOUND = 64;

/**
 * Ranks from the files of processes with GPU work: each one's recorded environment (rocpd), when they are distinct;
 * else the one number that differs between their output names once host and pid are taken out
 * (`-o results_%rank%`, `-d %h.%p.%env{OMPI_COMM_WORLD_RANK}%`, `rank3/`). Neither: ranks follow host, device and pid.
 */
function assignFileRanks(ps: ProfiledProcess[], warnings: string[]): void {
  if (ps.length < 2) return;
  const said = ps.filter((p) => p.envRank !== null);
  if (said.length > 0) {
    const seen = new Map<number, ProfiledProcess>();
    for (const p of said) {
      const other = seen.get(p.envRank as number);
      if (other) {
        warnings.push(
          `pids ${other.pid} and ${p.pid} both have rank ${p.envRank} in their recorded environment (a node-local rank?): ranks are numbered by host, device and pid instead`,
        );
        return;
      }
      seen.set(p.envRank as number, p);
    }
    for (const p of said) p.fileRank = p.envRank;
    return;
  }
  const named = ranksInNames(ps);
  if (named) ps.forEach((p, i) => (p.fileRank = named[i] as number));
}

/** Per process, the number that alone tells its output names apart (host and pid aside); null when there is none. */
function ranksInNames(ps: ProfiledProcess[]): number[] | null {
  const tokens = ps.map((p) => {
    const first = [...p.outputs].sort()[0];
    if (first === undefined) return null;
    const { dir, prefix } = setKeyOf(first);
    let stem = `${dir}/${prefix}`;
    // a folder named for the process itself (`-d %h.%p.%r`, holding `<pid>_` files) stands where a host's would
    if (p.host && (p.pid === null || !numbersOf(p.host).includes(p.pid))) stem = stem.split(p.host).join('\u0000');
    return stem.split(/(\d+)/).map((t, i) => (i % 2 === 1 && p.pid !== null && Number(t) === p.pid ? 'pid' : t));
  });
  const base = tokens[0];
  if (!base || tokens.some((t) => !t || t.length !== base.length)) return null;
  let at = -1;
  for (let i = 0; i < base.length; i++) {
    const same = tokens.every((t) => t?.[i] === base[i]);
    if (same) continue;
    if (i % 2 === 0 || at >= 0) return null; // text differs, or two numbers do
    at = i;
  }
  if (at < 0) return null;
  const ranks = tokens.map((t) => Number(t?.[at]));
  const bound = Math.max(MIN_NAMED_RANK_BOUND, NAMED_RANKS_PER_PROCESS * ranks.length);
  if (new Set(ranks).size !== ranks.length || ranks.some((r) => !Number.isSafeInteger(r) || r >= bound)) return null;
  return ranks;
}

const numbersOf = (text: string): number[] => (text.match(/\d+/g) ?? []).map(Number);

/**
 * The counter pass (`pass_<n>`, rocprofv3's folder per `--pmc` group) a file or folder is in, or null: one rule for
 * the sets read, the manifest's outputs and the dispatch scopes.
 */
export function passOfPath(path: string): string | null {
  return /(?:^|\/)(pass_\d+)(?:\/|$)/.exec(path)?.[1] ?? null;
}
