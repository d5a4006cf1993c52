// Jobs as root, said at start: the BUILT `kernel-runner serve` and `kernel-runner mcp` (its embedded runner), both
// run with a python3 the job user cannot run (a launcher in a folder closed to it, as pyenv's shims under /root).
// A root runner in a PID namespace says in one stderr line that jobs run as root, with the fix; a runner that is not
// root (its jobs never run as root) and an mcp with --server (no runner of its own) say nothing of it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { detectIsolation } from '../../../src/runner/isolation';
import { builtCli, repoRoot, tempDir } from './helpers';

const root = process.getuid?.() === 0;
const systemPython = ['/usr/bin/python3', '/usr/local/bin/python3'].find((p) => existsSync(p)) ?? 'python3';
const WARNING =
  /^kernel-runner (serve|mcp): warning: jobs run AS ROOT in their namespace: .* cannot run .*python3 \(.* is closed to it\).* Fix: create the job user \(useradd .*kernel-runner-job\) and install python3 and the toolchain outside /;

/** PATH with a python3 only this user may reach first. */
function closedPythonPath(): { env: NodeJS.ProcessEnv; dir: string } {
  const dir = tempDir('kr-root-warning-');
  const bin = path.join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(path.join(bin, 'python3'), `#!/bin/sh\nexec ${systemPython} "$@"\n`, { mode: 0o755 });
  chmodSync(dir, 0o700);
  return { env: { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` }, dir };
}

test('serve: jobs as root are said at start in one line with the fix', async (t) => {
  const { env, dir } = closedPythonPath();
  const dataDir = tempDir();
  t.after(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });
  const namespace = detectIsolation(env).kind === 'pid-namespace';
  const server = spawn(
    process.execPath,
    [builtCli(), 'serve', '--port', '0', '--no-token', '--data-dir', dataDir, '--profiler', 'none'],
    { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const stderr: string[] = [];
  createInterface({ input: server.stderr! }).on('line', (l) => stderr.push(l));
  const out = createInterface({ input: server.stdout! });
  // its start-up lines end with `stop:`; then it is stopped, and all it wrote is read
  await new Promise<void>((resolve, reject) => {
    server.once('exit', (code) => reject(new Error(`serve exited (${code}) before it started: ${stderr.join('\n')}`)));
    out.on('line', (l) => l.includes('stop:') && resolve());
  });
  server.removeAllListeners('exit');
  const exited = once(server, 'close'); // its pipes too: every line written is read
  server.kill('SIGTERM');
  await exited;
  const said = stderr.filter((l) => WARNING.test(l));
  if (root && namespace) {
    assert.equal(said.length, 1, `one line:\n${stderr.join('\n')}`);
    assert.ok(said[0]!.includes(dir), 'it names the folder closed to the job user');
  } else assert.deepEqual(said, [], 'not root: jobs do not run as root, nothing is said');
});

test('kernel-runner mcp: its embedded runner says the same at start; with --server nothing is said', async (t) => {
  const { env, dir } = closedPythonPath();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const run = async (args: string[]) => {
    const child = spawn(process.execPath, [builtCli(), 'mcp', ...args], { cwd: repoRoot, env, stdio: 'pipe' });
    const stderr: string[] = [];
    createInterface({ input: child.stderr! }).on('line', (l) => stderr.push(l));
    child.stdout!.resume();
    const exited = once(child, 'close');
    child.stdin!.end(); // the server exits when its stdin closes
    await exited;
    return stderr;
  };
  const embedded = await run([]);
  const said = embedded.filter((l) => WARNING.test(l));
  if (root) {
    assert.equal(said.length, 1, `one line:\n${embedded.join('\n')}`);
    assert.match(said[0]!, /^kernel-runner mcp: /);
    assert.ok(said[0]!.includes(dir));
  } else assert.deepEqual(said, []);
  const remote = await run(['--server', 'http://127.0.0.1:9']);
  assert.deepEqual(
    remote.filter((l) => /AS ROOT/.test(l)),
    [],
    'a remote runner: its own start says it',
  );
});
