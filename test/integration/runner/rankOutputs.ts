// What a multi-GPU profile of the bundled alltoall_py example must hold, checked the same way for the loopback
// runner and Slurm: one output set per rank process (the stand-in's layout: `<pid>_kernel_trace.csv`, ...), the
// manifest naming pid, ppid, rank and device of each, each rank's dispatches on its own device's agent (device d is
// the d-th GPU row of its agent_info.csv), and no file shared between processes.
import assert from 'node:assert/strict';
import type { ProcessManifest } from '../../../src/core/protocol/processManifest';
import { traceSummarySchema } from '../../../src/core/protocol/traceSummary';

function column(csv: string, name: string): string[] {
  const lines = csv.trim().split('\n');
  const header = (lines[0] ?? '').split(',').map((h) => h.replaceAll('"', ''));
  const at = header.indexOf(name);
  assert.ok(at >= 0, `no ${name} column`);
  return lines.slice(1).map((l) => (l.split(',')[at] ?? '').replaceAll('"', ''));
}

export function checkRankOutputs(
  manifest: ProcessManifest,
  read: (name: string) => string | undefined,
  worldSize: number,
): void {
  const ranks = manifest.processes.filter((p) => p.rank !== null).sort((a, b) => a.rank! - b.rank!);
  assert.deepEqual(
    ranks.map((p) => p.rank),
    Array.from({ length: worldSize }, (_, r) => r),
  );
  const seen = new Set<string>();
  for (const p of manifest.processes) {
    for (const out of p.outputs) {
      assert.ok(!seen.has(out), `${out} listed twice`);
      seen.add(out);
      assert.ok(read(out) !== undefined, `${out} in the archive`);
      assert.match(out, new RegExp(`(^|/)${p.pid}_`), `${out} is named by its process's pid`);
    }
  }
  const parents = new Set(ranks.map((p) => p.ppid));
  assert.equal(parents.size, 1, 'the ranks share one parent: the evaluator');
  const parent = manifest.processes.find((p) => p.pid === [...parents][0]);
  assert.ok(parent, 'the evaluator process is listed too');
  assert.deepEqual(parent.devices, [], 'the evaluator did no GPU work of its own');
  for (const p of ranks) {
    assert.deepEqual(p.devices, [p.rank], `rank ${p.rank} ran on device ${p.rank}`);
    const kinds = p.outputs.map((o) => o.replace(/^.*\d+_/, ''));
    for (const kind of ['kernel_trace.csv', 'agent_info.csv', 'memory_copy_trace.csv', 'results.db', 'results.pftrace'])
      assert.ok(kinds.includes(kind), `rank ${p.rank} has its ${kind}: ${kinds.join(', ')}`);
    const trace = read(p.outputs.find((o) => o.endsWith('_kernel_trace.csv'))!)!;
    const info = read(p.outputs.find((o) => o.endsWith('_agent_info.csv'))!)!;
    const gpuRows = info
      .trim()
      .split('\n')
      .slice(1)
      .filter((l) => l.includes('"GPU"'));
    assert.equal(gpuRows.length, worldSize, 'agent_info lists every GPU of the slot');
    const agent = `Agent ${gpuRows[p.rank!]!.split(',')[0]}`;
    const agents = new Set(column(trace, 'Agent_Id'));
    assert.deepEqual([...agents], [agent], `rank ${p.rank}'s dispatches are on its device's agent`);
  }
}

/**
 * The runner's summary of the whole profile counts every rank's dispatches, each on its own GPU agent: the ranks
 * replay one recorded run, so each rank's agent has the same count, and no dispatch is on another agent.
 */
export function checkSummaryCoversRanks(
  summary: unknown,
  manifest: ProcessManifest,
  read: (name: string) => string | undefined,
): void {
  const parsed = traceSummarySchema.parse(summary);
  const calls = manifest.processes
    .filter((p) => p.rank !== null)
    .map((p) => {
      const agent = column(read(p.outputs.find((o) => o.endsWith('_kernel_trace.csv'))!)!, 'Agent_Id')[0];
      return parsed.agents.find((a) => a.id === agent)?.kernelCalls ?? 0;
    });
  assert.ok(calls[0]! > 0, "dispatches on the first rank's agent");
  assert.deepEqual(
    new Set(calls),
    new Set([calls[0]]),
    `every rank's agent has the same dispatches: ${calls.join(', ')}`,
  );
  assert.equal(parsed.kernelTotals.calls, calls[0]! * calls.length, "no dispatch outside the ranks' agents");
}
