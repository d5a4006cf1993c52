// The per-rank section of a multi-process summary (TraceSummary.ranks): each process's kernels, communication,
// copies (device-to-device ones per GPU pair) and benchmark cases from its own tables (the numbers a one-process
// read of its files gives), its GPU's busy time, and the load imbalance across ranks with the line a person reads
// first.
import type { ImbalanceCase, RankCase, RankKernel, TraceRank, TraceRanks } from '../core/protocol/traceSummary';
import type { TraceAccumulator } from './accumulator';
import { kernelRole } from './kernelRole';
import { gpuIndexer, peerCopyRows } from './peerCopies';
import type { ProfiledProcess } from './processes';
import { isPseudoKernel } from './pseudoRows';
import { shortKernelName } from './shortName';

/** Kernels listed per rank (its totals cover all). */
const TOP_KERNELS = 10;
/** Cases listed per rank, by range time. */
const MAX_CASES = 50;

const naturalCompare = (a: string, b: string): number => a.localeCompare(b, 'en', { numeric: true });

interface Built {
  process: ProfiledProcess;
  rank: Omit<TraceRank, 'rank' | 'device'>;
  firstAgent: string | null;
}

function rankOf(
  p: ProfiledProcess,
  acc: TraceAccumulator,
  wallSpan: number | null,
  gpuOf: (agentId: string) => number | null,
): Built {
  const t = p.tables;
  const kernels = [...t.kernels.values()].filter((k) => !isPseudoKernel(k.name));
  const kernelNs = kernels.reduce((s, k) => s + k.stats.sum, 0);
  let communicationNs = 0;
  const agentIds = new Set<string>();
  for (const k of kernels) {
    if (kernelRole(k.name) === 'communication') communicationNs += k.stats.sum;
    for (const a of k.agentIds) agentIds.add(a);
  }
  const agents = [...agentIds].sort(naturalCompare);
  // its own busy time per set read; a GPU's whole when it was not tracked per process
  const busyNs = agents.reduce(
    (sum, id) =>
      sum +
      (p.busy.length > 0
        ? p.busy.reduce((n, set) => n + (set.get(id)?.busyNs ?? 0), 0)
        : (acc.agents.get(id)?.busy.busyNs ?? 0)),
    0,
  );
  const topKernels: RankKernel[] = kernels
    .sort((a, b) => b.stats.sum - a.stats.sum || b.stats.count - a.stats.count || a.name.localeCompare(b.name))
    .slice(0, TOP_KERNELS)
    .map((k) => ({
      name: k.name,
      shortName: shortKernelName(k.name),
      role: kernelRole(k.name),
      calls: k.stats.count,
      totalNs: k.stats.sum,
      percent: kernelNs > 0 ? (k.stats.sum / kernelNs) * 100 : 0,
    }));
  const copies = [...t.copies.values()]
    .map((c) => ({
      direction: c.direction,
      calls: c.stats.count,
      totalNs: c.stats.sum,
      bytes: c.bytesCalls === c.stats.count && c.stats.count > 0 ? c.bytes : null,
    }))
    .sort((a, b) => b.totalNs - a.totalNs || a.direction.localeCompare(b.direction));
  const peerCopies = peerCopyRows(t, gpuOf);
  const out = peerCopies.filter((c) => agentIds.has(c.srcAgentId) && !agentIds.has(c.dstAgentId));
  const cases: RankCase[] = [...t.markers.values()]
    .map((m) => {
      let caseKernelNs = 0;
      let caseCommNs = 0;
      for (const [name, k] of m.kernels) {
        if (isPseudoKernel(name)) continue;
        caseKernelNs += k.totalNs;
        if (kernelRole(name) === 'communication') caseCommNs += k.totalNs;
      }
      return {
        name: m.name,
        calls: m.stats.count,
        rangeNs: m.stats.sum,
        kernelNs: caseKernelNs,
        computeNs: caseKernelNs - caseCommNs,
        communicationNs: caseCommNs,
      };
    })
    .sort((a, b) => b.rangeNs - a.rangeNs || a.name.localeCompare(b.name))
    .slice(0, MAX_CASES);
  return {
    process: p,
    firstAgent: agents[0] ?? null,
    rank: {
      pid: p.pid,
      ppid: p.manifest?.ppid ?? null,
      host: p.host,
      agentIds: agents,
      outputs: [...p.outputs].sort(),
      kernelCalls: kernels.reduce((s, k) => s + k.stats.count, 0),
      kernelNs,
      computeNs: kernelNs - communicationNs,
      communicationNs,
      communicationPercent: kernelNs > 0 ? (communicationNs / kernelNs) * 100 : 0,
      copyNs: [...t.copies.values()].reduce((s, c) => s + c.stats.sum, 0),
      busyNs,
      // a process driving several GPUs (a thread per device): the share of their time together, so 0..100 still
      busyPercent: wallSpan && wallSpan > 0 ? (busyNs / (wallSpan * Math.max(1, agents.length))) * 100 : null,
      topKernels,
      copies,
      ...(peerCopies.length > 0 ? { peerCopies } : {}),
      ...(out.length > 0
        ? {
            peerCopiesOut: {
              calls: out.reduce((n, c) => n + c.calls, 0),
              totalNs: out.reduce((n, c) => n + c.totalNs, 0),
              bytes: out.every((c) => c.bytes !== null) ? out.reduce((n, c) => n + (c.bytes ?? 0), 0) : null,
            },
          }
        : {}),
      cases,
    },
  };
}

/** The per-rank section; `warnings` gets a note when two processes shared a GPU (their busy time is the GPU's). */
export function buildRanks(
  processes: ProfiledProcess[],
  acc: TraceAccumulator,
  from: TraceRanks['from'],
  wallSpan: number | null,
  warnings: string[],
  /** Filled with the process each rank's row is of. */
  processOf?: Map<TraceRank, ProfiledProcess>,
): TraceRanks {
  const gpuOf = gpuIndexer(acc);
  const built = processes.map((p) => rankOf(p, acc, wallSpan, gpuOf));
  // the GPUs in order: typed GPU agents, and any agent that ran kernels (a trace without agent_info)
  const gpus = [...acc.agents.values()]
    .filter((a) => a.info.type === 'GPU' || a.kernelCalls > 0)
    .map((a) => a.id)
    .sort(naturalCompare);
  const deviceOf = (b: Built): number | null => {
    if (b.firstAgent === null) return null;
    const listed = b.process.manifest?.devices?.[0];
    if (listed !== undefined) return listed;
    // a GPU's index among its own node's (agents of a multi-node profile are `<host>/Agent <n>`)
    const node = (id: string): string => id.slice(0, id.lastIndexOf('/') + 1);
    const at = gpus.filter((g) => node(g) === node(b.firstAgent as string)).indexOf(b.firstAgent);
    return at >= 0 ? at : null;
  };
  const withGpu = built
    .filter((b) => b.rank.kernelCalls > 0)
    .sort(
      (a, b) =>
        (a.rank.host ?? '').localeCompare(b.rank.host ?? '') ||
        (deviceOf(a) ?? 0) - (deviceOf(b) ?? 0) ||
        (a.rank.pid ?? 0) - (b.rank.pid ?? 0),
    );
  // the manifest's rank, else the one its files say (processes.ts), else the next free in host, device, pid order
  const givenRank = (b: Built): number | null => b.process.manifest?.rank ?? b.process.fileRank;
  const taken = new Set(withGpu.flatMap((b) => givenRank(b) ?? []));
  let next = 0;
  const ranked: TraceRank[] = withGpu.map((b) => {
    let rank = givenRank(b);
    if (rank === null) {
      while (taken.has(next)) next++;
      rank = next;
      taken.add(next);
    }
    const row: TraceRank = { rank, device: deviceOf(b), ...b.rank };
    processOf?.set(row, b.process);
    return row;
  });
  ranked.sort((a, b) => (a.rank ?? 0) - (b.rank ?? 0));
  const idle: TraceRank[] = built
    .filter((b) => b.rank.kernelCalls === 0)
    .map((b) => {
      const row: TraceRank = { rank: null, device: null, ...b.rank };
      processOf?.set(row, b.process);
      return row;
    })
    .sort((a, b) => (a.pid ?? 0) - (b.pid ?? 0));

  const users = new Map<string, number[]>();
  for (const r of ranked) for (const a of r.agentIds) users.set(a, [...(users.get(a) ?? []), r.rank as number]);
  for (const r of ranked)
    if (r.agentIds.length > 1)
      warnings.push(
        `rank ${r.rank} ran kernels on ${r.agentIds.length} GPUs (${r.agentIds.join(', ')}): its device is the first, its busy time the sum over them`,
      );
  const hostless = (rs: number[]): boolean => rs.every((n) => ranked.find((r) => r.rank === n)?.host === null);
  for (const [agent, rs] of users)
    if (rs.length > 1)
      warnings.push(
        `ranks ${rs.join(', ')} ran kernels on the same GPU (${agent}): each rank's busy time is that GPU's, shared` +
          (hostless(rs)
            ? " (or on GPUs of different nodes: their files do not say which node they are from; rocprofv3's default %hostname% folders do)"
            : ''),
      );

  const imbalance = imbalanceOf(ranked);
  return {
    imbalanceLine: imbalanceLine(ranked, idle.length, imbalance),
    from,
    processes: [...ranked, ...idle],
    imbalance,
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

function caseImbalance(name: string | null, values: Array<{ rank: number; ns: number }>): ImbalanceCase {
  let slow = values[0] as { rank: number; ns: number };
  let fast = slow;
  for (const v of values) {
    if (v.ns > slow.ns) slow = v;
    if (v.ns < fast.ns) fast = v;
  }
  const med = median(values.map((v) => v.ns));
  return {
    name,
    slowestRank: slow.rank,
    slowestNs: slow.ns,
    fastestRank: fast.rank,
    fastestNs: fast.ns,
    medianNs: med,
    overMedianPercent: med > 0 ? ((slow.ns - med) / med) * 100 : 0,
  };
}

/** The whole run, then each case two or more ranks ran kernels in (in name order), by compute time. */
function imbalanceOf(ranked: TraceRank[]): ImbalanceCase[] {
  if (ranked.length < 2) return [];
  const out = [
    caseImbalance(
      null,
      ranked.map((r) => ({ rank: r.rank as number, ns: r.computeNs })),
    ),
  ];
  const perCase = new Map<string, Array<{ rank: number; ns: number }>>();
  for (const r of ranked)
    for (const c of r.cases)
      if (c.kernelNs > 0)
        perCase.set(c.name, [...(perCase.get(c.name) ?? []), { rank: r.rank as number, ns: c.computeNs }]);
  for (const [name, values] of [...perCase].sort((a, b) => naturalCompare(a[0], b[0])))
    if (values.length > 1) out.push(caseImbalance(name, values));
  return out;
}

/** The line's durations: µs below a millisecond (a kernel's scale), ms above; the summary's numbers are exact ns. */
const ms = (ns: number): string => (ns < 1e6 ? `${(ns / 1e3).toFixed(2)} µs` : `${(ns / 1e6).toFixed(2)} ms`);

function rankName(ranked: TraceRank[], rank: number): string {
  const r = ranked.find((x) => x.rank === rank);
  return r?.device !== null && r?.device !== undefined ? `rank ${rank} (GPU ${r.device})` : `rank ${rank}`;
}

/** The line a person reads first: who everyone waits for, by how much, and how much of the time is communication. */
function imbalanceLine(ranked: TraceRank[], idle: number, imbalance: ImbalanceCase[]): string {
  const launchers = idle > 0 ? `; ${idle} process(es) without GPU work not counted` : '';
  if (ranked.length === 0) return `no process ran GPU work${launchers}`;
  if (ranked.length === 1)
    return `one rank with GPU work (${rankName(ranked, ranked[0]?.rank as number)}): nothing to balance${launchers}`;
  const comm = ranked.map((r) => r.communicationPercent);
  const commText = `communication ${Math.min(...comm).toFixed(0)}-${Math.max(...comm).toFixed(0)}% of kernel time`;
  const whole = imbalance[0] as ImbalanceCase;
  const wholeText = `${rankName(ranked, whole.slowestRank)} computes longest, ${ms(whole.slowestNs)} vs median ${ms(whole.medianNs)} (+${whole.overMedianPercent.toFixed(0)}%)`;
  const cases = imbalance.slice(1);
  if (cases.length === 0) return `${ranked.length} ranks: ${wholeText}; ${commText}${launchers}`;
  const slowCounts = new Map<number, number>();
  for (const c of cases) slowCounts.set(c.slowestRank, (slowCounts.get(c.slowestRank) ?? 0) + 1);
  const [mostRank, mostCount] = [...slowCounts].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0] as [number, number];
  const worst = [...cases].sort((a, b) => b.overMedianPercent - a.overMedianPercent)[0] as ImbalanceCase;
  return (
    `${ranked.length} ranks: ${rankName(ranked, mostRank)} is the slowest in ${mostCount} of ${cases.length} cases; ` +
    `worst "${worst.name}": ${rankName(ranked, worst.slowestRank)} ${ms(worst.slowestNs)} vs median ${ms(worst.medianNs)} (+${worst.overMedianPercent.toFixed(0)}%); ` +
    `whole run: ${wholeText}; ${commText}${launchers}`
  );
}
