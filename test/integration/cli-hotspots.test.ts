// Runs the BUILT CLI (dist/cli.cjs) `hotspots` on rocprofiler-sdk's own PC-sample files: the --json shape the issue
// names, with counts equal to a count done here from the file's text; --kernel; the text tables; `summarize`
// showing the top lines; a profile zip; and the exit-2 errors.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ZipArchive } from 'archiver';
import { pcHotspotsSchema, type PcHotspots } from '../../src/core/protocol/pcSampling';
import { tempDirsRemovedAfter } from '../support/tempDirs';
import { ensureBuilt } from './submit/helpers';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(repoRoot, 'dist/cli.cjs');
const fixtures = path.resolve(repoRoot, '../shared/fixtures/rocprof/pc-sampling');
const STOCHASTIC = path.join(fixtures, 'pc_sampling_stochastic_debug.csv');
const tempDir = tempDirsRemovedAfter('kr-cli-hotspots-');

before(() => {
  ensureBuilt();
});

function run(args: string[]) {
  const r = spawnSync(process.execPath, [cli, ...args], {
    cwd: tmpdir(),
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Data rows of a CSV whose quoted fields hold no line feeds: split on commas outside quotes. */
function rowsOf(file: string): string[][] {
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .slice(1);
  return lines.map((l) =>
    (l.match(/("(?:[^"]|"")*"|[^,]*)(?:,|$)/g) ?? [])
      .map((f) => f.replace(/,$/, '').replace(/^"|"$/g, ''))
      .slice(0, 10),
  );
}

test("--json: the issue's shape, every kernel's and line's samples and stalls as counted from the file", () => {
  const r = run(['hotspots', STOCHASTIC, '--json']);
  assert.equal(r.status, 0, r.stderr);
  const hot = pcHotspotsSchema.parse(JSON.parse(r.stdout)) as PcHotspots;
  assert.equal(hot.method, 'stochastic');
  assert.equal(hot.intervalUnit, 'cycles');
  assert.equal(hot.interval, null);
  const rows = rowsOf(STOCHASTIC);
  assert.equal(hot.samples, rows.length);
  const perKernel = new Map<string, number>();
  const perLine = new Map<string, number>();
  const stalls = new Map<string, number>();
  for (const f of rows) {
    const k = `dispatch ${f[2]}`;
    perKernel.set(k, (perKernel.get(k) ?? 0) + 1);
    perLine.set(`${k}|${f[4]}`, (perLine.get(`${k}|${f[4]}`) ?? 0) + 1);
    if (f[6] === '0') {
      const key = `${k}|${f[4]}|${(f[8] as string).replace('ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_', '')}`;
      stalls.set(key, (stalls.get(key) ?? 0) + 1);
    }
  }
  assert.deepEqual(new Map(hot.kernels.map((k) => [k.name, k.samples])), perKernel);
  const ours = new Map<string, number>();
  const ourStalls = new Map<string, number>();
  for (const k of hot.kernels) {
    for (const l of k.lines) {
      assert.deepEqual(Object.keys(l).sort(), [
        'file',
        'line',
        'meanActiveLanes',
        'samples',
        'share',
        'stalls',
        'types',
      ]);
      ours.set(`${k.name}|${l.file}:${l.line}`, l.samples);
      for (const [reason, n] of Object.entries(l.stalls)) ourStalls.set(`${k.name}|${l.file}:${l.line}|${reason}`, n);
    }
    for (const i of k.instructions) {
      for (const key of ['codeObject', 'offset', 'text', 'line', 'samples', 'share', 'stalls'])
        assert.ok(key in i, key);
    }
  }
  assert.deepEqual(ours, perLine);
  assert.deepEqual(ourStalls, stalls);
});

test('--kernel keeps the matching kernels; text lists the hottest lines and instructions', () => {
  const r = run(['hotspots', STOCHASTIC, '--kernel', 'dispatch 93', '--json']);
  assert.equal(r.status, 0, r.stderr);
  const hot = JSON.parse(r.stdout) as PcHotspots;
  assert.deepEqual(
    hot.kernels.map((k) => k.name),
    ['dispatch 93'],
  );
  const text = run(['hotspots', path.join(fixtures, 'pc_sampling_host_trap_debug.csv'), '--top', '2']);
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /Hot spots: 21 PC samples \(host-trap\) in 1 kernel/);
  assert.match(text.stdout, /52\.4%\s+11\s+16\.0\s+\S*MatrixTranspose\.cpp:44/);
  assert.match(text.stdout, /s_waitcnt vmcnt\(0\)/);
  assert.match(text.stdout, /\(1 more line\)/);
});

test('a profile zip; summarize shows the top lines', async () => {
  const zip = path.join(tempDir('zip'), 'profile.zip');
  const archive = new ZipArchive({ zlib: { level: 1 } });
  const out = createWriteStream(zip);
  archive.pipe(out);
  archive.file(STOCHASTIC, { name: 'prof/4242_pc_sampling_stochastic.csv' });
  await archive.finalize();
  await once(out, 'close');
  const r = run(['hotspots', zip, '--json']);
  assert.equal(r.status, 0, r.stderr);
  assert.equal((JSON.parse(r.stdout) as PcHotspots).samples, rowsOf(STOCHASTIC).length);
  const s = run(['summarize', zip]);
  assert.equal(s.status, 0, s.stderr);
  assert.match(s.stdout, /Hot spots: 97 PC samples \(stochastic\)/);
  assert.match(s.stdout, /WAITCNT/);
});

test('exit 2 with a clear message: no samples, no such kernel, a bad --top', () => {
  const none = run(['hotspots', path.join(fixtures, 'PROVENANCE.md')]);
  assert.equal(none.status, 2);
  assert.match(none.stderr, /no PC samples found/);
  assert.equal(none.stdout, '');
  const kernel = run(['hotspots', STOCHASTIC, '--kernel', 'nope']);
  assert.equal(kernel.status, 2);
  assert.match(kernel.stderr, /no sampled kernel matches "nope"/);
  const top = run(['hotspots', STOCHASTIC, '--top', '0']);
  assert.equal(top.status, 2);
  assert.match(top.stderr, /--top takes a whole number >= 1/);
});
