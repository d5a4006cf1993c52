// Process groups a runner left behind when it was killed itself (SIGKILL, OOM, power cut of the service only):
// each job's child runs in its own process group, and the job record holds that group's id plus the leader's start
// time, so the next start can end the group without risking a stranger that got the same pid since.
//
// Identity is the start time in clock ticks since boot, field 22 of /proc/<pid>/stat (Linux). A pid number cannot
// be handed out again while any process still uses it as its group id, so a group found under the stored id is
// ours if its leader has the stored start time, or, with the leader gone, if its members all started after it.
// Elsewhere (no /proc) nothing is recorded and nothing is killed.
import { readFileSync, readdirSync } from 'node:fs';

/** What a job record keeps of the process group it is running. */
export interface ProcessGroupRef {
  pgid: number;
  /** Start time of the group leader, clock ticks since boot. */
  start_ticks: number;
}

interface ProcStat {
  pgrp: number;
  startTicks: number;
  zombie: boolean;
}

function readStat(pid: number | string): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // `pid (comm) state ppid pgrp ...`: comm may hold spaces and parentheses, so split after the last ')'
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  const fields = text.slice(close + 2).split(' ');
  // fields[0] is field 3 (state); field n is fields[n - 3]
  const pgrp = Number(fields[2]);
  const startTicks = Number(fields[19]);
  if (!Number.isInteger(pgrp) || !Number.isInteger(startTicks)) return null;
  return { pgrp, startTicks, zombie: fields[0] === 'Z' };
}

/** The group a just-spawned leader heads (its own pid), or null where it cannot be identified later. */
export function processGroupRef(pid: number): ProcessGroupRef | null {
  if (process.platform !== 'linux') return null;
  const st = readStat(pid);
  return st ? { pgid: pid, start_ticks: st.startTicks } : null;
}

export type OrphanOutcome =
  /** The group was still there and got SIGKILL. */
  | 'killed'
  /** Nothing of it is left. */
  | 'gone'
  /** The id now belongs to another process: left alone. */
  | 'reused';

/** Sends SIGKILL to the stored group if it is still the same one. */
export function killOrphanGroup(ref: ProcessGroupRef): OrphanOutcome {
  if (process.platform !== 'linux' || !(ref.pgid > 1)) return 'gone';
  const leader = readStat(ref.pgid);
  // a pid number is not reused while our group exists: another start time means our group is gone
  if (leader && leader.startTicks !== ref.start_ticks) return 'reused';
  if (!leader || leader.zombie || leader.pgrp !== ref.pgid) {
    // the leader is gone: are members of its group left (a grandchild holding on)?
    let names: string[];
    try {
      names = readdirSync('/proc');
    } catch {
      return 'gone';
    }
    let members = 0;
    for (const name of names) {
      if (!/^\d+$/.test(name)) continue;
      const st = readStat(name);
      if (!st || st.zombie || st.pgrp !== ref.pgid) continue;
      if (st.startTicks < ref.start_ticks) return 'reused';
      members += 1;
    }
    if (members === 0) return 'gone';
  }
  try {
    process.kill(-ref.pgid, 'SIGKILL');
    return 'killed';
  } catch {
    return 'gone';
  }
}
