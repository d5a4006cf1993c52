// A flood of output on a busy machine (two CPU hogs beside it) through a real `kernel-runner serve` (the built CLI,
// its own process) while one client stalls: the runner's peak RSS (VmHWM of /proc/<serve>/status) stays under a
// bound that does not grow with the flood, since the job's pipes wait for the event log (ExecSpec.outputPressure)
// and a stalled client falls back to the log (backlogBudget.ts); a reading client and, once it reads again, the
// stalled one get every line once, in order.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { createParser } from 'eventsource-parser';
import { expandOutput, outputEventSchema } from '../../../src/core/protocol/api';
import { form, repoRoot, tempDir } from './helpers';

const cli = path.join(repoRoot, 'dist/cli.cjs');
const LINES = 1_500_000;
/** The flood is ~100 MB: a runner holding it (or a growing share of it) passes this. */
const RSS_BOUND_MB = 200;
const program = `
import sys
w = sys.stdout.write
for i in range(${LINES}):
    w("%08d " % i + "x" * 60 + "\\n")
`;

const dataDir = tempDir('kr-flood-memory-');
const children: ChildProcess[] = [];
let serve: ChildProcess;
let url = '';

before(async () => {
  if (!existsSync(cli)) {
    const r = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: repoRoot, stdio: 'inherit' });
    assert.equal(r.status, 0, 'build failed');
  }
  serve = spawn(
    process.execPath,
    [
      cli,
      'serve',
      '--port',
      '0',
      '--no-token',
      '--data-dir',
      dataDir,
      '--profiler',
      'none',
      '--script-timeout',
      '3600',
      '--max-job-output',
      '4GiB',
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  children.push(serve);
  const lines = createInterface({ input: serve.stdout! });
  const [first] = (await once(lines, 'line')) as [string];
  url = /listening on (http:\/\/\S+)/.exec(first)?.[1] ?? '';
  assert.ok(url, first);
  lines.on('line', () => undefined);
  for (let i = 0; i < 2; i++) children.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
});

after(async () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
});

/** Peak resident set of the serve process so far, in MB. */
function servePeakMb(): number {
  return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${serve.pid}/status`, 'utf8'))?.[1]) / 1024;
}

interface Reader {
  /** Resolves with the program's lines once the result event came. */
  lines: Promise<string[]>;
  /** Stops reading (the socket fills and the runner's writes to it back up) until `resume`. */
  stall(): void;
  resume(): void;
}

function readEvents(res: Response): Reader {
  const out: string[] = [];
  let done = false;
  const parser = createParser({
    onEvent(m) {
      if (m.event === 'output')
        for (const line of expandOutput(outputEventSchema.parse(JSON.parse(m.data)))) out.push(line.text);
      if (m.event === 'result' || m.event === 'error') done = true;
    },
  });
  let stalled: Promise<void> | null = null;
  let resume = () => undefined as void;
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const lines = (async () => {
    while (!done) {
      if (stalled) await stalled;
      const { value, done: end } = await reader.read();
      if (end) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
    await reader.cancel().catch(() => undefined);
    return out;
  })();
  return {
    lines,
    stall() {
      stalled = new Promise<void>((resolve) => (resume = resolve));
    },
    resume() {
      stalled = null;
      resume();
    },
  };
}

function assertEveryLineOnce(lines: string[]): void {
  assert.equal(lines.length, LINES, 'every line');
  const bad = lines.findIndex((text, i) => !text.startsWith(`${String(i).padStart(8, '0')} `));
  assert.equal(bad, -1, `line ${bad} out of order or doubled: ${lines[bad]}`);
}

test(`a ${Math.round((LINES * 70) / 1e6)} MB flood beside two CPU hogs with a stalled client: the runner's RSS stays under ${RSS_BOUND_MB} MB, every line once in order`, async (t) => {
  const accepted = (await (
    await fetch(`${url}/submission/script/CPU/test`, { method: 'POST', body: form('flood.py', program) })
  ).json()) as { details: { id: number } };
  const id = accepted.details.id;
  const stalledClient = readEvents(await fetch(`${url}/jobs/${id}/events`));
  stalledClient.stall();
  const reading = readEvents(await fetch(`${url}/jobs/${id}/events`));
  const seen = await reading.lines;
  const peakDuring = servePeakMb();
  t.diagnostic(`serve's peak RSS ${peakDuring.toFixed(0)} MB by the job's end`);
  assertEveryLineOnce(seen);
  assert.ok(
    peakDuring < RSS_BOUND_MB,
    `serve's peak RSS ${peakDuring.toFixed(0)} MB during the flood (bound ${RSS_BOUND_MB})`,
  );

  stalledClient.resume();
  assertEveryLineOnce(await stalledClient.lines);
  const peak = servePeakMb();
  t.diagnostic(`serve's peak RSS ${peak.toFixed(0)} MB once the stalled client read it all`);
  assert.ok(peak < RSS_BOUND_MB, `serve's peak RSS ${peak.toFixed(0)} MB (bound ${RSS_BOUND_MB})`);
});
