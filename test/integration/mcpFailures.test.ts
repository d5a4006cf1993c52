// Every kind of failed submission over MCP (the SDK's client, `kernel-runner mcp --server` a real `serve`) carries
// its reason and the compiler's or program's last lines in the `submit` answer itself, and the CLI's `submit` of the
// same file to the same runner shows the same: the run's status, the reason, the last line. Kinds: a compiler not
// on the runner, a compile error (a stand-in hipcc that fails as clang does), a crash, a timeout, a wrong answer,
// a refusal (a wrong token).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensureBuilt, runCli, startServe, tempDir, vectoradd, type ServeProcess } from './submit/helpers';
import { mcpSession, type Session } from './mcpSession';

const token = 'kr-failures-token-3c9e1d7a';
let work: string;
let serve: ServeProcess;
let session: Session;

/** The lines of a fenced block (fenced() of src/cli/mcp/answers.ts): what is between the fences. */
function unfence(text: string): string[] {
  const lines = text.split('\n');
  assert.match(lines[0]!, /^`{3,}untrusted-output$/, text);
  assert.equal(lines.at(-1), lines[0]!.replace(/untrusted-output$/, ''), text);
  return lines.slice(1, -1);
}

before(async () => {
  ensureBuilt();
  work = tempDir('kr-mcp-failures-');
  // the runner's PATH: a hipcc that fails as a compiler does, node and python3, and no nvcc
  const bin = path.join(work, 'bin');
  mkdirSync(bin);
  const hipcc = path.join(bin, 'hipcc');
  writeFileSync(
    hipcc,
    [
      '#!/bin/sh',
      'if [ "$1" = "--version" ]; then echo "HIP version: 6.4 (stand-in)"; exit 0; fi',
      `echo "bad.hip:2:1: error: unknown type name 'intt'" >&2`,
      'echo "1 error generated when compiling for gfx942." >&2',
      'exit 1',
      '',
    ].join('\n'),
  );
  // the runner's jobs may run as another user: the stand-in must be reachable by them
  for (const p of [work, bin, hipcc]) chmodSync(p, 0o755);
  serve = await startServe(['--token', token, '--script-timeout', '2'], {
    PATH: [bin, path.dirname(process.execPath), '/usr/bin', '/bin'].join(path.delimiter),
  });
  session = await mcpSession(work, ['--server', serve.url, '--out', path.join(work, 'out')], {
    KERNEL_RUNNER_TOKEN: token,
  });
});
after(async () => {
  await session?.close();
  await serve?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

function script(name: string, text: string): string {
  const file = path.join(work, name);
  writeFileSync(file, text);
  return file;
}

/** submit over MCP and with the CLI; the MCP answer's failure, checked against what the CLI printed. */
async function bothWays(file: string, kind: string, envToken = token) {
  const answer = await session.call('submit', { file, mode: 'test' });
  const cli = await runCli(['submit', file, '--server', serve.url, '--mode', 'test'], {
    cwd: work,
    env: { KERNEL_RUNNER_TOKEN: envToken },
  });
  const printed = `${cli.stdout}\n${cli.stderr}`;
  assert.equal(cli.code, 1, printed);
  assert.equal(answer.json.passed, false, answer.text);
  const f = answer.json.failure;
  assert.equal(f.kind, kind, answer.text);
  assert.equal(answer.json.message, f.reason);
  assert.ok(printed.includes(`Failed (${f.run}): ${f.reason}`), `the CLI prints the reason: ${printed}`);
  assert.ok(printed.includes(`${f.run}: ${f.status}`), `the CLI prints the status: ${printed}`);
  const lines = unfence(f.lines);
  assert.ok(lines.length > 0, answer.text);
  // the runner's own notes are printed without their tag
  const last = lines.at(-1)!.replace(/^\[kernel-runner\] /, '');
  assert.ok(printed.includes(last), `the CLI prints the last line "${last}": ${printed}`);
  assert.deepEqual(answer.json.next.length, 1);
  return { f, lines, answer, printed };
}

test('a compiler missing on the runner: the build failed, hipcc/nvcc not found, in the answer', async () => {
  const { f, lines } = await bothWays(
    script('missing.cu', '__global__ void k() {}\nint main() { return 0; }\n'),
    'build',
  );
  assert.equal(f.status, 'compilation failed');
  assert.match(f.reason, /the compiler was not found on the runner \(exit code 127\)/);
  assert.match(f.command, /^nvcc /);
  assert.match(lines.join('\n'), /nvcc was not found on this runner's PATH/);
});

test("a compile error: the compiler's own last lines in the answer", async () => {
  const { f, lines } = await bothWays(script('bad.hip', '#include <hip/hip_runtime.h>\nintt main() {}\n'), 'build');
  assert.match(f.reason, /the build failed \(exit code 1\)/, JSON.stringify(f));
  assert.match(f.command, /^hipcc -O3 /);
  assert.deepEqual(lines, [
    "bad.hip:2:1: error: unknown type name 'intt'",
    '1 error generated when compiling for gfx942.',
  ]);
});

test('a crash: killed by a signal, with what the program wrote last', async () => {
  const { f, lines } = await bothWays(
    script(
      'crash.py',
      '#!POPCORN leaderboard script\nimport os, signal, sys\nprint("about to crash", file=sys.stderr, flush=True)\nos.kill(os.getpid(), signal.SIGSEGV)\n',
    ),
    'crash',
  );
  assert.match(f.status, /^failed \(exit code 139\)$/);
  assert.match(f.reason, /killed by signal SIGSEGV/);
  assert.ok(lines.includes('about to crash'), lines.join('\n'));
});

test('a timeout: the runner stopped it, and said after how long', async () => {
  const { f, lines } = await bothWays(
    script('slow.py', '#!POPCORN leaderboard script\nimport time\nprint("started", flush=True)\ntime.sleep(120)\n'),
    'timeout',
  );
  assert.match(f.reason, /^timed out after 2 s/);
  assert.ok(lines.some((l) => /timed out after 2 s/.test(l)));
});

test('a wrong answer: which tests failed and why', async () => {
  const { f, lines } = await bothWays(path.join(vectoradd, 'solutions/wrong/bad_values.py'), 'wrong-answer');
  assert.equal(f.status, 'failed');
  assert.match(f.reason, /^\d+ of \d+ tests failed$/);
  assert.ok(
    lines.some((l) => / — /.test(l)),
    lines.join('\n'),
  );
});

test('a refusal: the runner refused the credentials, said in the answer as the CLI says it', async () => {
  const wrong = await mcpSession(work, ['--server', serve.url, '--out', path.join(work, 'out2')], {
    KERNEL_RUNNER_TOKEN: 'not-the-token-9f2e',
  });
  try {
    const file = path.join(vectoradd, 'submission.py');
    const r = await wrong.call('submit', { file, mode: 'test' });
    const cli = await runCli(['submit', file, '--server', serve.url, '--mode', 'test'], {
      cwd: work,
      env: { KERNEL_RUNNER_TOKEN: 'not-the-token-9f2e' },
    });
    assert.equal(r.isError, true, r.text);
    assert.notEqual(cli.code, 0);
    assert.equal(r.json.failure.kind, 'refused', r.text);
    assert.equal(r.json.outcome, 'failed');
    assert.match(r.json.failure.reason, /refused the credentials \(401\)/);
    // the CLI's words are the same, but for how a token is given there (a flag) and here (the server's setup)
    assert.match(cli.stderr, /refused the credentials \(401\)/);
    assert.ok(!r.text.includes('not-the-token-9f2e'));
  } finally {
    await wrong.close();
  }
});
