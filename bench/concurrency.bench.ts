// 200 concurrent submissions from our client against one runner (one CPU slot, so they queue): each holds its
// own streaming connection; all must finish with their own output (none lost, none crossed), total time reported,
// against 200 sequential `python3` runs of the same scripts measured in the same session.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRunnerClient } from '../src/core/client/index';
import { expandOutput } from '../src/core/protocol/api';
import { startRunner } from '../src/runner/index';

const COUNT = Number(process.env.BENCH_COUNT ?? 200);

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kr-bench-concurrency-'));
  const runner = await startRunner({ port: 0, dataDir, profiler: 'none', heartbeatMs: 15_000 });
  const client = createRunnerClient({ baseUrl: runner.url });
  try {
    const script = (i: number) => `print("token-${i}")\n`;
    let t0 = performance.now();
    for (let i = 0; i < Math.min(COUNT, 20); i++) spawnSync('python3', ['-c', script(i)]);
    const pythonEach = (performance.now() - t0) / Math.min(COUNT, 20);

    let maxQueue = 0;
    t0 = performance.now();
    const results = await Promise.allSettled(
      Array.from({ length: COUNT }, async (_v, i) => {
        const seen: string[] = [];
        const outcome = await client.submit(
          { leaderboard: 'script', gpu: 'CPU', mode: 'test', file: { name: `t${i}.py`, content: script(i) } },
          {
            idleTimeoutMs: 600_000,
            onEvent(e) {
              if (e.event === 'job') maxQueue = Math.max(maxQueue, e.data.queue_position);
              if (e.event === 'output') seen.push(...expandOutput(e.data).map((l) => l.text));
            },
          },
        );
        if (outcome.kind !== 'result') throw new Error(`submission ${i}: ${outcome.error.detail}`);
        if (seen.join('\n') !== `token-${i}`) throw new Error(`submission ${i} saw ${JSON.stringify(seen)}`);
        return outcome.jobId;
      }),
    );
    const total = (performance.now() - t0) / 1000;
    const ok = results.filter((r) => r.status === 'fulfilled');
    const ids = new Set(ok.map((r) => (r as PromiseFulfilledResult<number | undefined>).value));
    const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    console.log(`${COUNT} concurrent streaming submissions through the client, one runner, one CPU slot`);
    console.log(
      `  finished ${ok.length}/${COUNT} with their own output, ${ids.size} distinct job ids, deepest queue position ${maxQueue}`,
    );
    console.log(
      `  total ${total.toFixed(2)} s = ${((total / COUNT) * 1000).toFixed(0)} ms per job; python3 alone ${pythonEach.toFixed(0)} ms per run (ratio ${((total * 1000) / COUNT / pythonEach).toFixed(1)}x)`,
    );
    for (const f of failures.slice(0, 5))
      console.log(`  failed: ${f.reason instanceof Error ? f.reason.message : String(f.reason)}`);
    if (ok.length !== COUNT || ids.size !== COUNT) process.exitCode = 1;
  } finally {
    await runner.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

void main();
