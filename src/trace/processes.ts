// The processes of a multi-process profile: rocprofv3 writes one output set per process (`<hostname>/<pid>_...`,
// or a rocpd `<pid>_results.db`), and the runner may add `kernel-runner-processes.json` at the root saying which
// outputs are which process, its parent and its rank. Sets are grouped into processes here; ranks.ts turns them
// into the summary's per-rank section.
import type { BusyTracker } from './busy';
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
}

/** Collects the sets read into processes: by the manifest's outputs, else the set's pid and host. */
export class ProcessGroups {
  private readonly byKey = new Map<string, ProfiledProcess>();
  private readonly byOutput = new Map<string, ManifestProcess[]>();

  constructor(readonly manifest: ProcessManifest | null) {
    for (const p of manifest?.processes ?? [])
      for (const o of p.outputs ?? []) this.byOutput.set(o, [...(this.byOutput.get(o) ?? []), p]);
  }

  /** A set read: `setKey` when neither the manifest nor a pid names its process. */
  add(
    setKey: string,
    who: { pid: number | null; host: string | null },
    tables: RunTables,
    busy: Map<string, BusyTracker>,
    outputs: string[],
  ): void {
    const { key, pid, listed } = this.identify(setKey, who, outputs);
    let p = this.byKey.get(key);
    if (!p) {
      p = { key, pid, host: who.host, tables: new RunTables(), busy: [], outputs: [], manifest: listed };
      this.byKey.set(key, p);
    }
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

  /** Every process read, and the manifest's processes of which no file was read (listed, with no work). */
  all(): ProfiledProcess[] {
    const out = [...this.byKey.values()];
    for (const m of this.manifest?.processes ?? []) {
      if (out.some((p) => p.pid === m.pid)) continue;
      out.push({
        key: `manifest\u0000${m.pid}`,
        pid: m.pid,
        host: null,
        tables: new RunTables(),
        busy: [],
        outputs: [],
        manifest: m,
      });
    }
    return out;
  }
}
