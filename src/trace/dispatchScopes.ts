// Which process a profile's dispatches are of, for the counter table (CounterTableBuilder.useScope): every
// rocprofv3 process numbers its dispatches from 1, so a profile of several processes (one per rank of a multi-GPU
// job) keys each one's dispatches within a scope of its own. A counter run of several passes (`--pmc A --pmc B`:
// pass_1/, pass_2/, ...) runs the program again per pass, each process under a new pid: the scope is then the
// process's identity across passes, so that a pass's counters join the same process's dispatches of the timing pass.
//   identity: the manifest's rank; else, for a listed process without one, its devices when no other process of its
//   pass has them; else the process's place in its pass by pid (several passes: said in a warning), or its pid.
// A profile of one process (however many passes, a parent without GPU work aside) is not scoped: everything is in
// scope 0, as before scopes.
import type { ProcessManifest } from '../core/protocol/processManifest';
import { passOfPath } from './processes';

type ManifestProcess = ProcessManifest['processes'][number];

/** An output set as the scopes see it. */
export interface ScopedSet {
  pass: string | null;
  host: string | null;
  /** The `<pid>_` of its file names, null when they have none (a merged database). */
  pid: number | null;
  /** It has dispatches (a kernel trace, counters, a database). */
  dispatches: boolean;
  /** It is of the pass the timings come from (or the profile has one pass). */
  timing: boolean;
}

export class DispatchScopes {
  readonly warnings: string[] = [];
  /** Scope numbers by identity (0 stays the unscoped table's). */
  private readonly numbers = new Map<string, number>();
  private readonly listed = new Map<number, ManifestProcess>();
  /** Per pass, the pids of its sets with dispatches, in order. */
  private readonly pidsOf = new Map<string | null, number[]>();
  /** Pass and device list of manifest entries, to tell whether a list is one process's alone in its pass. */
  private readonly devicesUsed = new Map<string, number>();
  private readonly on: boolean;
  private warned = false;

  constructor(
    sets: readonly ScopedSet[],
    manifest: ProcessManifest | null,
    private readonly passCount: number,
  ) {
    this.on = sets.filter((s) => s.timing && s.dispatches).length > 1;
    for (const p of manifest?.processes ?? []) {
      this.listed.set(p.pid, p);
      if (p.devices.length > 0) {
        const key = devicesKey(passOfEntry(p), p.devices);
        this.devicesUsed.set(key, (this.devicesUsed.get(key) ?? 0) + 1);
      }
    }
    for (const s of sets) {
      if (!s.dispatches || s.pid === null) continue;
      const pids = this.pidsOf.get(s.pass) ?? [];
      if (!pids.includes(s.pid)) pids.push(s.pid);
      this.pidsOf.set(s.pass, pids);
    }
    for (const pids of this.pidsOf.values()) pids.sort((a, b) => a - b);
  }

  /** The scope of a set's dispatches (0: the profile is not scoped, the set names no process or has no dispatches). */
  ofSet(s: ScopedSet): number {
    if (!this.on || s.pid === null || !s.dispatches) return 0;
    return this.number(this.identity(s.pass, s.host, s.pid, this.pidsOf.get(s.pass) ?? []));
  }

  /** The scope of process `pid` of a database of several processes (`pids`) in pass `pass`. */
  ofDatabaseProcess(pass: string | null, host: string | null, pid: number, pids: readonly number[]): number {
    return this.number(
      this.identity(
        pass,
        host,
        pid,
        [...pids].sort((a, b) => a - b),
      ),
    );
  }

  private identity(pass: string | null, hostDir: string | null, pid: number, pidsOfPass: readonly number[]): string {
    // `pass_<n>/<pid>_...`: the folder is the pass, not a host
    const host = hostDir !== null && hostDir !== pass ? hostDir : '';
    const m = this.listed.get(pid);
    if (m?.rank !== null && m?.rank !== undefined) return `rank ${m.rank}`;
    // listed without GPU work (the evaluator's parent): it has no dispatches to join, nothing to guess
    if (m && m.devices.length === 0) return `no GPU work ${host}\u0000${pid}`;
    if (m && m.devices.length > 0 && this.devicesUsed.get(devicesKey(passOfEntry(m), m.devices)) === 1)
      return `devices ${m.devices.join(',')}`;
    if (this.passCount < 2) return `pid ${host}\u0000${pid}`;
    if (!this.warned) {
      this.warned = true;
      this.warnings.push(
        `counters: processes of different passes told apart by pid order (the runner's manifest names them): each pass's n-th process by pid is taken to be the same process`,
      );
    }
    return `order ${host}\u0000${pidsOfPass.indexOf(pid)}`;
  }

  private number(identity: string): number {
    let n = this.numbers.get(identity);
    if (n === undefined) this.numbers.set(identity, (n = this.numbers.size + 1));
    return n;
  }
}

function passOfEntry(p: ManifestProcess): string {
  return passOfPath(p.outputs[0] ?? '') ?? '';
}

function devicesKey(pass: string, devices: readonly number[]): string {
  return `${pass}\u0000${[...devices].sort((a, b) => a - b).join(',')}`;
}
