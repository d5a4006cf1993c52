// Runs the BUILT CLI (dist/cli.cjs) as a child process, the way users pipe rocprof output into it.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from './submit/helpers';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(repoRoot, 'dist/cli.cjs');
const fixtures = path.resolve(repoRoot, '../shared/fixtures/rocprof');
const ESC = '\x1b';

before(() => {
  ensureBuilt();
});

function runFilter(args: string[], input: Buffer | string) {
  const r = spawnSync(process.execPath, [cli, 'filter', ...args], { input, env: { ...process.env, NO_COLOR: '' } });
  return { status: r.status, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8') };
}

test('filter keeps exactly the application lines of a real rocprofv3 stderr log', () => {
  for (const name of [
    'derived__rocprofv3-2025-07-rocpd-pass_stderr_ansi.txt',
    'derived__rocprofv3-2025-03-csv-pass_stderr_ansi.txt',
  ]) {
    const r = runFilter([], readFileSync(path.join(fixtures, name)));
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'vcopy testing on GCD 0\nFinished allocating vectors on the CPU\n');
    assert.equal(r.stderr, '');
  }
});

test('filter writes nothing for a log that is all noise', () => {
  const r = runFilter([], readFileSync(path.join(fixtures, 'compiled__stderr_lines_from_issues.txt')));
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, '');
});

test('--show-noise writes every line in order, noise marked with [noise]', () => {
  const input = readFileSync(path.join(fixtures, 'derived__rocprofv3-2025-03-csv-pass_stderr_ansi.txt'));
  const r = runFilter(['--show-noise'], input);
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.split('\n');
  assert.equal(lines.pop(), '');
  assert.equal(lines.length, 6);
  assert.ok(
    lines.slice(0, 4).every((l) => l.startsWith('[noise] ') && !l.includes(ESC)),
    lines.join('\n'),
  );
  assert.match(
    lines[1] ?? '',
    /^\[noise\] E20250328 22:43:59\.489465 140180820113408 output_stream\.cpp:105\] Opened result file: /,
  );
  assert.deepEqual(lines.slice(4), ['vcopy testing on GCD 0', 'Finished allocating vectors on the CPU']);
});

test('line endings, fatal errors, uncoloured text and invalid UTF-8 come through', () => {
  const input = Buffer.concat([
    Buffer.from(
      `${ESC}[0;33mW20250710 21:33:25.713947 1401 simple_timer.cpp:55] [rocprofv3] tool initialization${ESC}[m\r\n`,
    ),
    Buffer.from(`${ESC}[mwindows line\r\nprogress 50%\rprogress 100%\r\n`),
    Buffer.from('[rocprofv3] Fatal error: the application exited early\n'),
    Buffer.from([0x62, 0x61, 0x64, 0xff, 0x0a]),
    Buffer.from('[320.801]       perfetto.cc:47304 Configured tracing session 1\nlast line, no newline'),
  ]);
  const r = runFilter([], input);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(
    r.stdout,
    'windows line\r\nprogress 50%\rprogress 100%\r\n[rocprofv3] Fatal error: the application exited early\nbad\ufffd\nlast line, no newline',
  );
  const kept = runFilter(['--keep-ansi'], `${ESC}[1mbold${ESC}[0m\n`);
  assert.equal(kept.stdout, `${ESC}[1mbold${ESC}[0m\n`);
});

test('filter streams: a line comes out while the input pipe stays open', { timeout: 30_000 }, async () => {
  const child = spawn(process.execPath, [cli, 'filter'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  const gotFirst = new Promise<void>((resolve) => {
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString('utf8');
      if (stdout.includes('first program line\n')) resolve();
    });
  });
  child.stdin.write(
    '[387.781]       perfetto.cc:60128 Tracing session 1 ended, total sessions:0\nfirst program line\n',
  );
  await gotFirst; // stdin is still open here
  assert.equal(stdout, 'first program line\n');
  child.stdin.end('second\n');
  const [code] = (await once(child, 'close')) as [number];
  assert.equal(code, 0);
  assert.equal(stdout, 'first program line\nsecond\n');
});

test(
  'a reader that goes away (EPIPE, as with | head) ends filter quietly with status 0',
  { timeout: 60_000 },
  async () => {
    const child = spawn(process.execPath, [cli, 'filter'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.stdin.on('error', () => {}); // the child may exit before all of our input is written
    const closed = once(child, 'close');
    child.stdout.once('data', () => child.stdout.destroy());
    const block = Buffer.from('program output line that keeps coming\n'.repeat(2000));
    let open = true;
    void closed.then(() => (open = false));
    for (let i = 0; i < 2000 && open; i++) {
      // once() rejects with our own EPIPE when the child has already gone: that is the expected end.
      if (!child.stdin.write(block)) await Promise.race([once(child.stdin, 'drain'), closed]).catch(() => {});
    }
    if (open) child.stdin.end();
    const [code, signal] = (await closed) as [number | null, string | null];
    assert.equal(signal, null);
    assert.equal(code, 0);
    assert.equal(stderr, '');
  },
);
