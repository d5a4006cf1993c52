// What the test stand-in rocprofv3 writes, computed here from the recorded fixtures by the rule its header states:
// one clock per run; host-to-device copies from T0, kernels GAP after them, the other copies GAP after the kernels;
// the kernel agent becomes the agent_info GPU `Agent 2`. Tests compare the runner's summaries with this.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './helpers';

const fixtureDir = path.resolve(repoRoot, '../shared/fixtures/rocprof');
export const GAP_NS = 10_000;
export const GPU_AGENT = 'Agent 2';

export type Row = Record<string, string>;

function splitCsvLine(line: string): string[] {
  const out: string[] = [];
  const cell = /("(?:[^"]|"")*"|[^,]*)(,|$)/g;
  for (let m = cell.exec(line); m; m = cell.exec(line)) {
    const raw = m[1] as string;
    out.push(raw.startsWith('"') ? raw.slice(1, -1).replace(/""/g, '"') : raw);
    if (m[2] === '') break;
  }
  return out;
}

export function readCsv(file: string): Row[] {
  const [header, ...lines] = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  const names = splitCsvLine(header as string);
  return lines.map((l) => Object.fromEntries(splitCsvLine(l).map((v, i) => [names[i] as string, v])));
}

export const fixture = (name: string): Row[] => readCsv(path.join(fixtureDir, `rocm-systems__sdkdocs__${name}.csv`));

const start = (r: Row) => Number(r.Start_Timestamp);
const end = (r: Row) => Number(r.End_Timestamp);

/** Rows moved so that the earliest start is `at` (spacing and durations kept). */
export function shiftTo(rows: Row[], at: number): Row[] {
  if (!rows.length) return [];
  const first = Math.min(...rows.map(start));
  return rows.map((r) => ({
    ...r,
    Start_Timestamp: String(start(r) - first + at),
    End_Timestamp: String(end(r) - first + at),
  }));
}

function union(intervals: Array<[number, number]>): number {
  let total = 0;
  let curStart = -Infinity;
  let curEnd = -Infinity;
  for (const [s, e] of [...intervals].sort((a, b) => a[0] - b[0])) {
    if (s > curEnd) {
      if (curEnd > curStart) total += curEnd - curStart;
      curStart = s;
      curEnd = e;
    } else curEnd = Math.max(curEnd, e);
  }
  if (curEnd > curStart) total += curEnd - curStart;
  return total;
}

/** The stand-in's kernel and copy rows for a run starting at t0, and the figures a summary of them must show. */
export function expectedRun(t0: number) {
  const kernelAgents = new Set(fixture('kernel_trace').map((k) => k.Agent_Id));
  const gpu = (agent: string | undefined) => (kernelAgents.has(agent) ? GPU_AGENT : (agent as string));
  const copies = fixture('memory_copy_trace').map((c): Row => ({
    ...c,
    Source_Agent_Id: gpu(c.Source_Agent_Id),
    Destination_Agent_Id: gpu(c.Destination_Agent_Id),
  }));
  const toDevice = shiftTo(
    copies.filter((r) => r.Direction!.endsWith('HOST_TO_DEVICE')),
    t0,
  );
  const kernelsAt = Math.max(...toDevice.map(end)) + GAP_NS;
  const kernels = shiftTo(fixture('kernel_trace'), kernelsAt).map((r): Row => ({ ...r, Agent_Id: GPU_AGENT }));
  const back = shiftTo(
    copies.filter((r) => !r.Direction!.endsWith('HOST_TO_DEVICE')),
    Math.max(...kernels.map(end)) + GAP_NS,
  );
  const all = [...toDevice, ...kernels, ...back];
  const wallStart = Math.min(...all.map(start));
  const wallEnd = Math.max(...all.map(end));
  const perKernel = new Map<string, { calls: number; totalNs: number }>();
  for (const k of kernels) {
    const entry = perKernel.get(k.Kernel_Name!) ?? { calls: 0, totalNs: 0 };
    entry.calls += 1;
    entry.totalNs += end(k) - start(k);
    perKernel.set(k.Kernel_Name!, entry);
  }
  return {
    toDevice,
    kernels,
    back,
    wallSpanNs: wallEnd - wallStart,
    busyNs: union(all.map((r) => [start(r), end(r)])),
    kernelNs: kernels.reduce((s, k) => s + end(k) - start(k), 0),
    copyNs: [...toDevice, ...back].reduce((s, c) => s + end(c) - start(c), 0),
    perKernel,
  };
}
