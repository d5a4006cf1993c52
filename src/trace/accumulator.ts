// Whole-summary state shared by all readers: agents (with their busy trackers), the wall span, processes,
// what was read and skipped, cross-checks and warnings.
import { TraceClock } from './traceClock';
import type { CrossCheck, SkippedSource, TraceProcess, TraceSource } from '../core/protocol/traceSummary';
import { BusyTracker, type BusyOptions } from './busy';
import { FOLDED_AGENTS, keyWithin } from './keyLimits';
import { RunTables } from './tables';
import { MAX_AGENTS } from './limits';

type AgentType = 'GPU' | 'CPU' | 'unknown';

export interface AgentInfo {
  type: AgentType;
  name: string | null;
  productName: string | null;
  cuCount: number | null;
}

export class AgentState {
  info: AgentInfo = { type: 'unknown', name: null, productName: null, cuCount: null };
  kernelCalls = 0;
  kernelNs = 0;
  copyNs = 0;
  /** Seen in an agent-info source (listed even when idle). */
  described = false;
  readonly busy: BusyTracker;
  /** The busy time of the process being read on this agent, in a multi-process profile (see trackProcess). */
  processBusy: BusyTracker | null = null;
  constructor(
    readonly id: string,
    busyOptions: BusyOptions,
  ) {
    this.busy = new BusyTracker(busyOptions);
  }
}

export class TraceAccumulator {
  readonly agents = new Map<string, AgentState>();
  readonly tables = new RunTables();
  readonly sources: TraceSource[] = [];
  readonly skipped: SkippedSource[] = [];
  readonly checks: CrossCheck[] = [];
  readonly warnings: string[] = [];
  readonly processes = new Map<string, TraceProcess>();
  wallStart = Infinity;
  wallEnd = -Infinity;
  /** Some kernel times come from kernel_stats alone (no intervals: busy time cannot count them). */
  kernelTimesFromStats = false;
  /** The epoch every timestamp is taken relative to (traceClock.ts): add it back to show a time as written. */
  readonly clock = new TraceClock();

  /** Per agent, the busy time of the process being read (null: not tracked). */
  private processTrackers: Map<string, BusyTracker> | null = null;

  constructor(readonly busyOptions: BusyOptions = {}) {}

  /**
   * From now on every agent's busy time also goes to `trackers` (made per agent as used), until the next call:
   * one process's own busy time, which another process's copy to the same GPU does not lengthen.
   */
  trackProcess(trackers: Map<string, BusyTracker> | null): void {
    this.processTrackers = trackers;
    for (const a of this.agents.values()) a.processBusy = this.processTrackerOf(a.id);
  }

  private processTrackerOf(id: string): BusyTracker | null {
    const trackers = this.processTrackers;
    if (!trackers) return null;
    let t = trackers.get(id);
    if (!t) trackers.set(id, (t = new BusyTracker(this.busyOptions)));
    return t;
  }

  /** The agent's state; past MAX_AGENTS agents, the one of FOLDED_AGENTS (keyLimits.ts). */
  agent(agentId: string): AgentState {
    const id = keyWithin(this.agents, agentId, MAX_AGENTS, FOLDED_AGENTS);
    let a = this.agents.get(id);
    if (!a) {
      a = new AgentState(id, this.busyOptions);
      a.processBusy = this.processTrackerOf(id);
      this.agents.set(id, a);
    }
    return a;
  }

  describeAgent(id: string, info: Partial<AgentInfo>): void {
    const a = this.agent(id);
    a.described = true;
    a.info = {
      type: info.type ?? a.info.type,
      name: info.name ?? a.info.name,
      productName: info.productName ?? a.info.productName,
      cuCount: info.cuCount ?? a.info.cuCount,
    };
  }

  /** A kernel dispatch or a copy occupying `agent` (null: no GPU end, e.g. host to host) over [start, end]. */
  addGpuWork(agent: AgentState | null, start: number, end: number, kind: 'kernel' | 'copy'): void {
    if (start < this.wallStart) this.wallStart = start;
    if (end > this.wallEnd) this.wallEnd = end;
    if (!agent) return;
    if (kind === 'kernel') {
      agent.kernelCalls++;
      agent.kernelNs += end - start;
    } else {
      agent.copyNs += end - start;
    }
    agent.busy.add(start, end);
    agent.processBusy?.add(start, end);
  }

  addProcess(pid: number, host: string | null, command: string | null = null): void {
    const key = `${host ?? ''}\u0000${pid}`;
    const known = this.processes.get(key);
    if (known) {
      known.command ??= command;
    } else {
      this.processes.set(key, { pid, host, command });
    }
  }
}
