// `kernel-runner mcp` (the built CLI, a real process) given what a prompt-injected agent could give it: FIFOs as
// every path a tool reads (each answered with a clear error; the file tools still answer after; the server exits
// by itself when its stdin closes), links planted under ./kernel-runner-traces (nothing written outside it), and
// two sessions sharing one folder (distinct run ids and result files, none overwritten).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { snapshot } from '../support/fileSnapshot';
import { tempDirsRemovedAfter } from '../support/tempDirs';
import { mcpProcessSession, mcpSession } from './mcpSession';
import { ensureBuilt, repoRoot, vectoradd } from './submit/helpers';

const tempDir = tempDirsRemovedAfter('kr-mcp-hostile-');
const DB = path.resolve(repoRoot, '../shared/fixtures/rocprof/batched_gemm__28_results.db');

/** A home-like folder an attacker would aim at: a shell rc file the agent must not overwrite. */
function fakeHome(): string {
  const home = tempDir('home');
  writeFileSync(path.join(home, '.bashrc'), 'export PS1="$ "\n');
  return home;
}

// a server that blocks on a FIFO never answers: the bound turns that hang into a failure
test(
  'FIFOs as every path a tool reads: each answered with an error, the file tools still answer, stdin closed ends the server',
  { timeout: 300_000 },
  async () => {
    ensureBuilt();
    const dir = tempDir('fifo');
    const fifo = (name: string) => {
      const p = path.join(dir, name);
      execFileSync('mkfifo', [p]);
      return p;
    };
    const [json, zip, py, co, db] = ['a.result.json', 'trace.zip', 'kernel.py', 'kernel.co', 'results.db'].map(fifo);
    const s = await mcpProcessSession(dir, ['--out', path.join(dir, 'out')]);
    try {
      // more calls at once than libuv has pool threads (4): a single blocking open would hold one for ever
      const calls: Array<[string, Record<string, unknown>]> = [
        ['compare', { a: json, b: json }],
        ['compare', { a: json, b: DB }],
        ['compare', { a: zip, b: zip }],
        ['compare', { a: DB, b: db }],
        ['submit', { file: py, mode: 'test' }],
        ['profile_digest', { path: zip }],
        ['profile_digest', { path: DB, baseline: db }],
        ['isa', { path: co }],
      ];
      const answers = await Promise.all(calls.map(([name, args]) => s.call(name, args)));
      answers.forEach((a, i) => {
        assert.equal(a.isError, true, `${calls[i]![0]}: ${a.text}`);
        assert.match(a.text, /a named pipe \(FIFO\).*refused/, `${calls[i]![0]} ${JSON.stringify(calls[i]![1])}`);
      });

      const digest = await s.call('profile_digest', { path: DB });
      assert.equal(digest.isError, false, digest.text);
      assert.ok(digest.json.kernels.length > 0);
      const compared = await s.call('compare', { a: DB, b: DB });
      assert.equal(compared.isError, false, compared.text);
      assert.equal(compared.json.kind, 'profiles');
    } finally {
      const exit = await s.endInput();
      assert.deepEqual(exit, { code: 0, signal: null }, 'the server exits by itself when its stdin closes');
    }
  },
);

test('links planted under kernel-runner-traces: submit writes nothing outside, and says why it refused', async () => {
  ensureBuilt();
  const home = fakeHome();
  const homeBefore = snapshot(home);
  const repo = tempDir('repo');
  // the attack: a predictable run id's folder planted as a link to the home folder
  const out = path.join(repo, 'kernel-runner-traces');
  mkdirSync(path.join(out, 'submissions'), { recursive: true });
  for (let i = 1; i <= 9; i++) symlinkSync(home, path.join(out, 'submissions', `r${i}`), 'dir');
  // each area, and the folder itself, a link in a repository of its own
  const planted = ['submissions', 'results', 'traces'].map((area) => {
    const dir = tempDir(`area-${area}`);
    mkdirSync(path.join(dir, 'kernel-runner-traces'));
    symlinkSync(home, path.join(dir, 'kernel-runner-traces', area));
    return dir;
  });
  const rootLinked = tempDir('root-link');
  symlinkSync(home, path.join(rootLinked, 'kernel-runner-traces'));

  const s = await mcpSession(repo, []);
  try {
    const code = 'print("gotcha")\n';
    const r = await s.call('submit', { code, file_name: '.bashrc', mode: 'test' });
    const saved = r.json?.file ?? '';
    assert.ok(saved.startsWith(path.join(out, 'submissions') + path.sep), r.text);
    assert.equal(readFileSync(saved, 'utf8'), code, 'the code went into a fresh folder of its own');
    assert.notEqual(path.basename(path.dirname(saved)), 'r1');
  } finally {
    await s.close();
  }
  for (const dir of [...planted, rootLinked]) {
    const t = await mcpSession(dir, []);
    try {
      const r = await t.call('submit', { code: 'print(1)\n', file_name: '.bashrc', mode: 'test' });
      assert.equal(r.isError, true, r.text);
      assert.match(r.text, /is a link: refused/);
    } finally {
      await t.close();
    }
  }
  assert.deepEqual(snapshot(home), homeBefore, 'nothing in the home folder was written, created or removed');
});

test('two sessions in one folder: distinct run ids and result files, the first unchanged by the second', async () => {
  ensureBuilt();
  const dir = tempDir('shared');
  const out = path.join(dir, 'kernel-runner-traces');
  const file = path.join(vectoradd, 'submission.py');
  const [s1, s2] = await Promise.all([mcpSession(dir, []), mcpSession(dir, [])]);
  try {
    const [a, b] = await Promise.all([
      s1.call('submit', { file, mode: 'test' }),
      s2.call('submit', { file, mode: 'test' }),
    ]);
    assert.equal(a.isError, false, a.text);
    assert.equal(b.isError, false, b.text);
    assert.notEqual(a.json.run_id, b.json.run_id);
    assert.ok(a.json.result_file.startsWith(path.join(out, 'results')), a.text);
    assert.notEqual(a.json.result_file, b.json.result_file);
    const first = readFileSync(a.json.result_file, 'utf8');
    const c = await s2.call('submit', { file, mode: 'test' });
    assert.equal(c.isError, false, c.text);
    assert.ok(![a.json.result_file, b.json.result_file].includes(c.json.result_file));
    assert.equal(readFileSync(a.json.result_file, 'utf8'), first, "the first session's result file is unchanged");
    assert.equal(readdirSync(path.join(out, 'results')).length, 3);
  } finally {
    await Promise.all([s1.close(), s2.close()]);
  }
});

test('a submit past its time limit answers with the limit, its job is cancelled, and the session goes on', async () => {
  ensureBuilt();
  const dir = tempDir('limit');
  const slow = path.join(dir, 'slow.py');
  writeFileSync(slow, '#!POPCORN leaderboard script\nimport time\nprint("started", flush=True)\ntime.sleep(300)\n');
  const s = await mcpProcessSession(dir, [], { KERNEL_RUNNER_MCP_TIME_LIMIT_S: '10' });
  try {
    // the embedded runner is started first, so the limit covers the job and not the start-up
    assert.equal((await s.call('list_leaderboards', {})).isError, false);
    let runId = '';
    const r = await s.call(
      'submit',
      { file: slow, mode: 'test' },
      { onProgress: (m) => (runId ||= /^(r\S+) \(job \d+\)/.exec(m)?.[1] ?? '') },
    );
    assert.equal(r.isError, true, r.text);
    assert.equal(r.text, 'submit: stopped after its time limit of 10 s (the job was cancelled)');
    const run = await s.call('get_run', { run_id: runId });
    assert.equal(run.json.outcome, 'cancelled', run.text);
    assert.equal((await s.call('list_leaderboards', {})).isError, false);
  } finally {
    assert.deepEqual(await s.endInput(), { code: 0, signal: null });
  }
});
