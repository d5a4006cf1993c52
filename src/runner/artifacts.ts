// Turns a profiler's output folder into the downloadable archive: per-process pftrace files merged into
// combined.pftrace (one track per GPU, pftraceMerge.ts), dumped code objects and the raw stderr log added, rocprofv3's own
// `.rocprofv3/` scratch left out, the process manifest written (processManifest.ts), zipped with archiver.
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { readdir, rename, stat, unlink } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { agentDevices, buildProcessManifest, outputsByPid, saveProcessManifest } from './processManifest';
import { mergePftraces, type TraceInput } from './pftraceMerge';
import type { ProcessManifest } from '../core/protocol/processManifest';

/** Files under `dir`, relative, skipping `.rocprofv3` folders. */
async function listOutputs(dir: string): Promise<string[]> {
  const out: string[] = [];
  async function walk(d: string): Promise<void> {
    let entries;
    try {
      entries = await readdir(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(d, e.name);
      if (e.isDirectory()) {
        if (e.name !== '.rocprofv3') await walk(p);
      } else if (e.isFile()) out.push(relative(dir, p));
    }
  }
  await walk(dir);
  return out;
}

async function concatenate(files: string[], target: string): Promise<void> {
  const out = createWriteStream(target, { mode: 0o600 });
  // chunk by chunk with back-pressure: a pipeline per file would add listeners to `out` for each (a job's 8 ranks)
  for (const f of files) for await (const chunk of createReadStream(f)) if (!out.write(chunk)) await once(out, 'drain');
  await new Promise<void>((resolve, reject) => {
    out.on('error', reject);
    out.end(resolve);
  });
}

/**
 * A counter run's pass_1/, pass_2/, ... each trace the whole program again: the timeline is the first pass's
 * (the one the summary's timings come from); the other passes' traces stay in their folders, out of the combine.
 */
export function timingPassOnly(pftraces: string[]): string[] {
  const passOf = (f: string): number | null => {
    const m = /^pass_(\d+)[\\/]/.exec(f);
    return m ? Number(m[1]) : null;
  };
  const passes = pftraces.map(passOf).filter((n): n is number => n !== null);
  if (passes.length === 0) return pftraces;
  const first = Math.min(...passes);
  return pftraces.filter((f) => passOf(f) === null || passOf(f) === first);
}

/** Each trace with its process's pid, rank and GPU agents' devices (from the manifest and its agent_info.csv). */
async function traceInputs(
  outDir: string,
  pftraces: readonly string[],
  manifest: ProcessManifest | null,
  slotDevices: readonly number[],
): Promise<TraceInput[]> {
  const byPid = outputsByPid(pftraces);
  const inputs: TraceInput[] = [];
  for (const f of pftraces) {
    const pid = [...byPid].find(([, files]) => files.includes(f.split('\\').join('/')))?.[0] ?? null;
    const entry = manifest?.processes.find((p) => p.pid === pid);
    let devices = new Map<string, number>();
    try {
      if (entry) devices = await agentDevices(outDir, entry.outputs, slotDevices);
    } catch {
      // no readable agent_info.csv: the GPU tracks are per agent
    }
    inputs.push({ path: join(outDir, f), pid, rank: entry?.rank ?? null, devices });
  }
  return inputs;
}

export interface PackagedProfile {
  /** Files in the archive, relative. */
  files: string[];
  zipBytes: number;
}

/**
 * Finishes `outDir` in place (combined.pftrace, code objects from `runDir`, stderr.log) and zips it to `zipPath`.
 * `level` is zlib's: 1 is ~30% faster than 6 for ~25% more bytes on traces (see performance notes).
 */
export async function packageProfile(opts: {
  outDir: string;
  runDir: string;
  stderrLogPath: string | null;
  zipPath: string;
  level: number;
  /** The job's devices, for the process manifest (processManifest.ts). */
  devices?: readonly number[];
}): Promise<PackagedProfile> {
  const { outDir, runDir } = opts;
  const outputs = await listOutputs(outDir);
  let manifest: ProcessManifest | null = null;
  try {
    manifest = await buildProcessManifest(outDir, outputs, opts.devices ?? []);
  } catch {
    // an output the manifest cannot read (the summary reports what is wrong with it): the archive goes without
  }
  const pftraces = timingPassOnly(outputs.filter((f) => f.endsWith('.pftrace') && f !== 'combined.pftrace'));
  if (pftraces.length > 0) {
    const paths = pftraces.map((f) => join(outDir, f));
    try {
      await mergePftraces(
        await traceInputs(outDir, pftraces, manifest, opts.devices ?? []),
        join(outDir, 'combined.pftrace'),
      );
    } catch {
      // a trace this reader cannot take apart: Perfetto still opens the byte-for-byte concatenation
      await concatenate(paths, join(outDir, 'combined.pftrace'));
    }
    // one process: combined.pftrace is its trace; several (a multi-GPU job's ranks): each keeps its own as well
    if (outputsByPid(pftraces).size <= 1) await Promise.all(paths.map((p) => unlink(p)));
  }
  for (const name of await readdir(runDir)) {
    if (/^_code_object.*\.o$/.test(name)) await rename(join(runDir, name), join(outDir, name));
  }
  if (opts.stderrLogPath) {
    try {
      await rename(opts.stderrLogPath, join(outDir, 'stderr.log'));
    } catch {
      // no stderr captured
    }
  }
  if (manifest) {
    const kept = new Set((await listOutputs(outDir)).map((f) => f.split('\\').join('/')));
    const processes = manifest.processes
      .map((p) => ({ ...p, outputs: p.outputs.filter((o) => kept.has(o)) }))
      .filter((p) => p.outputs.length > 0);
    if (processes.length > 0) await saveProcessManifest(outDir, { ...manifest, processes });
  }
  const files = await listOutputs(outDir);
  // archiver and its streams are loaded by the first profile only: most runs never zip anything
  const { ZipArchive } = await import('archiver');
  const archive = new ZipArchive({ zlib: { level: opts.level } });
  const sink = createWriteStream(opts.zipPath, { mode: 0o600 });
  const done = pipeline(archive, sink);
  for (const f of files) archive.file(join(outDir, f), { name: f.split('\\').join('/') });
  await archive.finalize();
  await done;
  return { files, zipBytes: (await stat(opts.zipPath)).size };
}
