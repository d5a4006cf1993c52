// Process groups a runner left behind when it was killed itself (SIGKILL, OOM, power cut of the service only):
// each job's child runs in its own process group, and the job record holds that group's id plus the leader's start
// time, so the next start can end the group without risking a stranger that got the same pid since.
//
// Identity is the start time in clock ticks since boot, field 22 of /proc/<pid>/stat (Linux). A pid number cannot
// be handed out again while any process still uses it as its group id, so a group found under the stored id is
// ours if its leader has the stored start time, or, with the leader gone, if its members all started after it.
// Processes that left the group (setsid, a daemon) are found by the job's random KERNEL_RUNNER_JOB_TAG in their
// environment (see isolation.ts), kept in the record too. Elsewhere (no /proc) nothing is recorded and nothing is killed.
import { readdirSync } from 'node:fs';
import { killTagged, readStat } from './isolation';

/** What a job record keeps of the process group it is running. */
export interface ProcessGroupRef {
  pgid: number;
  /** Start time of the group leader, clock ticks since boot. */
  start_ticks: number;
  /** The job's KERNEL_RUNNER_JOB_TAG: processes that left the group (setsid, daemons) are found by it. */
  tag?: string;
}

/** Tags of the process groups running now, by leader pid (set by the executor, read by processGroupRef). */
const tags = new Map<number, string>();

export function registerTag(pid: number, tag: string | null): void {
  if (tag) tags.set(pid, tag);
  else tags.delete(pid);
}

/** The group a just-spawned leader heads (its own pid), or null where it cannot be identified later. */
export function processGroupRef(pid: number): ProcessGroupRef | null {
  if (process.platform !== 'linux') return null;
  const st = readStat(pid);
  if (!st) return null;
  const tag = tags.get(pid);
  return { pgid: pid, start_ticks: st.startTicks, ...(tag ? { tag } : {}) };
}

export type OrphanOutcome =
  /** The group was still there and got SIGKILL. */
  | 'killed'
  /** Nothing of it is left. */
  | 'gone'
  /** The id now belongs to another process: left alone. */
  | 'reused';

/** Sends SIGKILL to the stored group if it is still the same one, and to every process carrying the job's tag. */
export function killOrphanGroup(ref: ProcessGroupRef): OrphanOutcome {
  if (process.platform !== 'linux' || !(ref.pgid > 1)) return 'gone';
  const group = killGroupIfOurs(ref);
  // the tag is random per job: whoever carries it is the job's, whatever became of the group
  const tagged = ref.tag ? killTagged(ref.tag) : 0;
  return tagged > 0 ? 'killed' : group;
}

function killGroupIfOurs(ref: ProcessGroupRef): OrphanOutcome {
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
