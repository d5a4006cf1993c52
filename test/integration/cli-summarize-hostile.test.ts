// Hostile traces against the BUILT `kernel-runner summarize`, in a child process whose peak RSS it reports itself
// (process.resourceUsage().maxRSS at exit, through a --require preload): a kernel trace with tens of thousands of
// agents, one with 150,000 distinct kernel names (read on this thread and by the worker threads), and a rocpd
// database with both. Before the key limits (src/trace/keyLimits.ts) each agent cost ~25 KB and each name ~3.5 KB:
// 1.5 GB and 500 MB here. Asserted: the peak RSS stays within the child's own start-up peak (measured on a tiny
// trace in the same run) plus a small multiple of the input's size, every dispatch is still counted, the names
// past the limit are folded into one row with a warning, and the tables print a bounded number of agent rows.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { HEADER } from '../../bench/kernelTraceData';
import type { TraceSummary } from '../../src/core/protocol/traceSummary';
import { FOLDED_AGENTS, FOLDED_KERNELS } from '../../src/trace/keyLimits';
import { MAX_AGENTS, MAX_DISTINCT_NAMES } from '../../src/trace/limits';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(repoRoot, 'dist/cli.cjs');
const dir = mkdtempSync(path.join(tmpdir(), 'kr-cli-hostile-'));
const preload = path.join(dir, 'max-rss.cjs');
const AGENTS = 60_000;
const NAMES = 150_000;
/** Memory the input may cost beyond the start-up peak, per byte of input. */
const PER_INPUT_BYTE = 4;
/** Beside it, what a read costs whatever its size (buffers, worker threads' heaps, the JSON of 10,000 rows). */
const FIXED_MIB = 96;

before(() => {
  if (!existsSync(cli) || !existsSync(path.join(repoRoot, 'dist/trace-worker.cjs'))) {
    const r = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: repoRoot, stdio: 'inherit' });
    assert.equal(r.status, 0, 'build failed');
  }
  // every thread of the child (its workers load the preload too) reports the process's peak at its exit
  writeFileSync(
    preload,
    "process.on('exit', () => require('fs').writeSync(2, `\\nkr-max-rss-kib ${process.resourceUsage().maxRSS}\\n`));\n",
  );
});
after(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  stdout: string;
  stderr: string;
  maxRssMiB: number;
}

function summarize(file: string, args: string[], env: Record<string, string> = {}): Run {
  const r = spawnSync(process.execPath, [cli, 'summarize', file, ...args], {
    cwd: tmpdir(),
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    env: { ...process.env, NO_COLOR: '1', NODE_OPTIONS: `--require ${preload}`, ...env },
  });
  assert.equal(r.status, 0, r.stderr);
  const peaks = [...r.stderr.matchAll(/kr-max-rss-kib (\d+)/g)].map((m) => Number(m[1]));
  assert.ok(peaks.length > 0, `no peak RSS reported: ${r.stderr}`);
  return { stdout: r.stdout, stderr: r.stderr, maxRssMiB: Math.max(...peaks) / 1024 };
}

/** Writes `rows` kernel_trace rows (ROCm 7.0 layout) made by `row(i)`. */
async function writeTrace(
  name: string,
  rows: number,
  row: (i: number) => { agent: number; kernel: string },
): Promise<string> {
  const file = path.join(dir, name);
  const out = createWriteStream(file);
  out.write(`${HEADER}\n`);
  for (let at = 0; at < rows;) {
    const block: string[] = [];
    for (const stop = Math.min(rows, at + 4096); at < stop; at++) {
      const { agent, kernel } = row(at);
      const start = 1_000_000 + at * 1000;
      block.push(
        `"KERNEL_DISPATCH",${agent},1,0,7,${at + 1},1,"${kernel}",${at + 1},${start},${start + 600},0,0,8,0,16,64,1,1,1024,1,1\n`,
      );
    }
    if (!out.write(block.join(''))) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return file;
}

let baselineMiB = 0;
/** The bound for a read of `file`: the start-up peak plus PER_INPUT_BYTE per byte of input plus FIXED_MIB. */
const boundFor = (file: string, base = baselineMiB): number =>
  base + (PER_INPUT_BYTE * statSync(file).size) / 2 ** 20 + FIXED_MIB;

const peakNote = (r: Run, file: string, base = baselineMiB): string =>
  `peak RSS ${r.maxRssMiB.toFixed(0)} MiB for ${(statSync(file).size / 2 ** 20).toFixed(1)} MiB of input (start-up ${base.toFixed(0)} MiB, bound ${boundFor(file, base).toFixed(0)} MiB)`;

before(async () => {
  const tiny = await writeTrace('tiny_kernel_trace.csv', 10, () => ({ agent: 1, kernel: 'k' }));
  baselineMiB = summarize(tiny, ['--json']).maxRssMiB;
});

test(`${AGENTS} agents: bounded memory, the agents past ${MAX_AGENTS} folded, a bounded agent table`, async (t) => {
  const file = await writeTrace('agents_kernel_trace.csv', AGENTS, (i) => ({ agent: i + 1, kernel: 'k' }));
  const json = summarize(file, ['--json']);
  t.diagnostic(peakNote(json, file));
  assert.ok(
    json.maxRssMiB < boundFor(file),
    `peak RSS ${json.maxRssMiB.toFixed(0)} MiB, bound ${boundFor(file).toFixed(0)} MiB (start-up ${baselineMiB.toFixed(0)})`,
  );
  const s = JSON.parse(json.stdout) as TraceSummary;
  assert.equal(s.kernelTotals.calls, AGENTS, 'every dispatch counted');
  assert.equal(s.agents.length, MAX_AGENTS + 1);
  const folded = s.agents.find((a) => a.id === FOLDED_AGENTS);
  assert.equal(folded?.kernelCalls, AGENTS - MAX_AGENTS);
  assert.ok(
    s.warnings.some((w) => w.includes(`more than ${MAX_AGENTS} distinct agents`) && w.includes(FOLDED_AGENTS)),
    s.warnings.join('\n'),
  );
  assert.ok((s.timeline?.agents.length ?? 0) <= MAX_AGENTS + 1);

  const text = summarize(file, []);
  const agentRows = text.stdout
    .split('\n')
    .filter((l) => /^ {2}Agent \d+ /.test(l) || l.startsWith(`  ${FOLDED_AGENTS}`));
  assert.ok(agentRows.length <= 15, `${agentRows.length} agent rows printed`);
  assert.match(
    text.stdout,
    new RegExp(`\\(\\+${MAX_AGENTS + 1 - agentRows.length} more busy agents: --json lists them all\\)`),
  );
});

test(`${NAMES} kernel names, on this thread and by worker threads: bounded memory, the names past ${MAX_DISTINCT_NAMES} folded`, async (t) => {
  const file = await writeTrace('names_kernel_trace.csv', NAMES, (i) => ({
    agent: 1,
    kernel: `void gemm_kernel_${i}<float, 128, 64>(float const*, float*)`,
  }));
  const reads = [
    summarize(file, ['--json'], { KERNEL_RUNNER_TRACE_THREADS: '0' }),
    summarize(file, ['--json'], {
      KERNEL_RUNNER_TRACE_MIN_BYTES: '0',
      KERNEL_RUNNER_TRACE_THREADS: '2',
      KERNEL_RUNNER_TRACE_DEBUG: '1',
    }),
  ];
  assert.match(
    reads[1]?.stderr ?? '',
    /names_kernel_trace\.csv: \d+ part\(s\), [12] worker thread\(s\)/,
    'the workers read it',
  );
  for (const r of reads) {
    t.diagnostic(peakNote(r, file));
    assert.ok(
      r.maxRssMiB < boundFor(file),
      `peak RSS ${r.maxRssMiB.toFixed(0)} MiB, bound ${boundFor(file).toFixed(0)} MiB (start-up ${baselineMiB.toFixed(0)})`,
    );
    const s = JSON.parse(r.stdout) as TraceSummary;
    assert.equal(s.kernelTotals.calls, NAMES, 'every dispatch counted');
    assert.equal(s.kernels.length, MAX_DISTINCT_NAMES + 1);
    const folded = s.kernels.find((k) => k.name === FOLDED_KERNELS);
    assert.ok(folded && folded.calls >= NAMES - MAX_DISTINCT_NAMES, `folded row: ${JSON.stringify(folded?.calls)}`);
    assert.ok(
      s.warnings.some((w) => w.includes(`more than ${MAX_DISTINCT_NAMES} distinct kernel names`)),
      s.warnings.join('\n'),
    );
  }
});

/** A minimal rocpd database: a `kernels` table of `rows` dispatches. */
function writeRocpd(name: string, rows: number, row: (i: number) => { agent: number; kernel: string }): string {
  const file = path.join(dir, name);
  const db = new Database(file);
  db.exec('CREATE TABLE kernels (name TEXT, agent_abs_index INTEGER, start INTEGER, "end" INTEGER)');
  const insert = db.prepare('INSERT INTO kernels VALUES (?, ?, ?, ?)');
  db.transaction(() => {
    for (let i = 0; i < rows; i++) insert.run(row(i).kernel, row(i).agent, 1000 + i * 1000, 1600 + i * 1000);
  })();
  db.close();
  return file;
}

test('a rocpd database with 20,000 agents and 60,000 kernel names: bounded memory, folded', (t) => {
  // the database reader (sql.js, WASM) has its own start-up peak
  const base = summarize(
    writeRocpd('tiny_results.db', 10, () => ({ agent: 0, kernel: 'k' })),
    ['--json'],
  ).maxRssMiB;
  const rows = 60_000;
  const file = writeRocpd('hostile_results.db', rows, (i) => ({ agent: i % 20_000, kernel: `kernel_${i}` }));
  const r = summarize(file, ['--json']);
  t.diagnostic(peakNote(r, file, base));
  assert.ok(r.maxRssMiB < boundFor(file, base), peakNote(r, file, base));
  const s = JSON.parse(r.stdout) as TraceSummary;
  assert.equal(s.sources[0]?.format, 'rocpd');
  assert.equal(s.kernelTotals.calls, rows);
  assert.equal(s.kernels.length, MAX_DISTINCT_NAMES + 1);
  assert.equal(s.agents.length, MAX_AGENTS + 1);
  assert.ok(
    s.warnings.some((w) => w.includes('distinct kernel names')) &&
      s.warnings.some((w) => w.includes('distinct agents')),
    s.warnings.join('\n'),
  );
});
