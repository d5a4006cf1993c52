// A token by default: `kernel-runner serve` without flags generates one (stored 0600, shown once, reused), clients
// of the same user find it for a loopback URL, --token-file / $KERNEL_RUNNER_TOKEN keep it out of `ps`, --no-token
// is for loopback only, and the CLI's embedded runner has a token of its own.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cli, ensureBuilt, problems, runCli, scripts, tempDir } from './helpers';
import { startEmbedded } from '../../../src/cli/commands/submit';

before(() => ensureBuilt());

interface Serve {
  child: ChildProcess;
  url: string;
  out: () => string;
  err: () => string;
  stop(): Promise<void>;
}

/** An environment of a user whose home is `home` (no state/token variables inherited). */
function userEnv(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, NO_COLOR: '1', ...extra };
  delete env.XDG_STATE_HOME;
  if (!('KERNEL_RUNNER_TOKEN' in extra)) delete env.KERNEL_RUNNER_TOKEN;
  return env;
}

function serve(args: string[], env: NodeJS.ProcessEnv): Promise<Serve> {
  const child = spawn(
    process.execPath,
    [cli, 'serve', '--port', '0', '--problems', problems, '--kill-grace', '1', ...args],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (t: string) => (out += t));
  child.stderr!.setEncoding('utf8').on('data', (t: string) => (err += t));
  return new Promise((resolve, reject) => {
    // until its startup lines or its exit, however long a busy machine takes (the bound is a safety net only)
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not start within 120 s: ${out}${err}`));
    }, 120_000);
    const onData = () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m && /stop: /.test(out)) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        // the token line (if any) follows the startup lines in the same write burst: give it a moment
        setTimeout(
          () =>
            resolve({
              child,
              url: m[1] as string,
              out: () => out,
              err: () => err,
              stop: async () => {
                if (child.exitCode !== null) return;
                child.kill('SIGTERM');
                await once(child, 'close');
              },
            }),
          100,
        );
      }
    };
    child.stdout!.on('data', onData);
    child.once('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}: ${out}${err}`));
    });
  });
}

const cmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8');

test('serve without flags generates a token, stores it 0600, shows it once, and clients of the same user find it', async (t) => {
  const home = tempDir('kr-token-home-');
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const env = userEnv(home);
  const tokenFile = path.join(home, '.local/state/kernel-runner/token');

  const first = await serve([], env);
  let token: string;
  try {
    assert.ok(existsSync(tokenFile), 'the token is stored in the default state dir');
    assert.equal(statSync(tokenFile).mode & 0o777, 0o600);
    token = readFileSync(tokenFile, 'utf8').trim();
    assert.ok(token.length >= 40, token);
    const out = first.out();
    assert.match(
      out,
      /auth: +token required \(stored in ~\/\.local\/state\/kernel-runner\/token; Bearer or X-Popcorn-Cli-Id\)/,
    );
    assert.match(out, /generated a token .* in ~\/\.local\/state\/kernel-runner\/token \(0600\): /);
    assert.equal(out.split(token).length - 1, 1, 'the token is printed exactly once');
    assert.ok(!first.err().includes(token), 'not on stderr');
    assert.ok(!cmdline(first.child.pid!).includes(token));

    assert.equal((await fetch(`${first.url}/health`)).status, 200);
    const refused = await fetch(`${first.url}/leaderboards`);
    assert.equal(refused.status, 401);
    assert.equal(
      (await fetch(`${first.url}/leaderboards`, { headers: { Authorization: `Bearer ${token}` } })).status,
      200,
    );
    assert.equal(
      (await fetch(`${first.url}/leaderboards`, { headers: { 'X-Popcorn-Cli-Id': token } })).status,
      200,
      'popcorn-cli: cli_id = the token',
    );

    // submit and submissions of the same user (same HOME) find it for the loopback URL
    const ok = await runCli(['submit', path.join(scripts, 'hello.py'), '--server', first.url], { env });
    assert.equal(ok.code, 0, ok.stderr);
    assert.ok(!ok.stdout.includes(token) && !ok.stderr.includes(token), 'the client never shows the token');
    const list = await runCli(['submissions', 'list', '--server', first.url], { env });
    assert.equal(list.code, 0, list.stderr);
    // another user (another HOME) has no token: a clear 401
    const other = tempDir('kr-token-other-');
    t.after(() => rmSync(other, { recursive: true, force: true }));
    const stranger = await runCli(['submit', path.join(scripts, 'hello.py'), '--server', first.url], {
      env: userEnv(other),
    });
    assert.equal(stranger.code, 1);
    assert.match(stranger.stderr, /refused the credentials \(401\)/);
  } finally {
    await first.stop();
  }

  const second = await serve([], env);
  try {
    assert.ok(!second.out().includes(token), 'a later start does not show the token');
    assert.doesNotMatch(second.out(), /generated a token/);
    assert.equal(readFileSync(tokenFile, 'utf8').trim(), token, 'the stored token is reused');
    assert.equal(
      (await fetch(`${second.url}/leaderboards`, { headers: { Authorization: `Bearer ${token}` } })).status,
      200,
    );
    assert.equal((await fetch(`${second.url}/leaderboards`)).status, 401);
  } finally {
    await second.stop();
  }
});

test('serve --data-dir keeps its generated token there and says clients pass --token-file', async (t) => {
  const home = tempDir('kr-token-home-');
  const dataDir = tempDir('kr-token-data-');
  t.after(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });
  const env = userEnv(home);
  const s = await serve(['--data-dir', dataDir], env);
  try {
    const file = path.join(dataDir, 'token');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.ok(!existsSync(path.join(home, '.local/state/kernel-runner/token')), 'nothing in the default state dir');
    assert.match(s.out(), new RegExp(`pass --token-file ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
    const withFile = await runCli(['submit', path.join(scripts, 'hello.py'), '--server', s.url, '--token-file', file], {
      env,
    });
    assert.equal(withFile.code, 0, withFile.stderr);
  } finally {
    await s.stop();
  }
});

test('--token-file and $KERNEL_RUNNER_TOKEN supply the token without it appearing in the argv', async (t) => {
  const home = tempDir('kr-token-home-');
  const dataDir = tempDir('kr-token-data-');
  t.after(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });
  const secret = 'file-token-0123456789abcdef';
  const file = path.join(home, 'runner.token');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });

  const fromFile = await serve(['--data-dir', dataDir, '--token-file', file], userEnv(home));
  try {
    assert.ok(!cmdline(fromFile.child.pid!).includes(secret));
    assert.match(fromFile.out(), /auth: +token required \(from .*runner\.token;/);
    assert.ok(!fromFile.out().includes(secret) && !fromFile.err().includes(secret), 'never printed');
    assert.ok(!existsSync(path.join(dataDir, 'token')), 'no token generated');
    assert.equal((await fetch(`${fromFile.url}/leaderboards`)).status, 401);
    assert.equal(
      (await fetch(`${fromFile.url}/leaderboards`, { headers: { Authorization: `Bearer ${secret}` } })).status,
      200,
    );
    const r = await runCli(['submit', path.join(scripts, 'hello.py'), '--server', fromFile.url, '--token-file', file], {
      env: userEnv(home),
    });
    assert.equal(r.code, 0, r.stderr);
  } finally {
    await fromFile.stop();
  }

  const envSecret = 'env-token-0123456789abcdef';
  const fromEnv = await serve(['--data-dir', dataDir], userEnv(home, { KERNEL_RUNNER_TOKEN: envSecret }));
  try {
    assert.ok(!cmdline(fromEnv.child.pid!).includes(envSecret));
    assert.match(fromEnv.out(), /auth: +token required \(from \$KERNEL_RUNNER_TOKEN;/);
    assert.ok(!fromEnv.out().includes(envSecret));
    assert.equal((await fetch(`${fromEnv.url}/leaderboards`)).status, 401);
    const r = await runCli(['submit', path.join(scripts, 'hello.py'), '--server', fromEnv.url], {
      env: userEnv(home, { KERNEL_RUNNER_TOKEN: envSecret }),
    });
    assert.equal(r.code, 0, r.stderr);
  } finally {
    await fromEnv.stop();
  }
});

test('--no-token works on loopback with a warning, and refuses a non-loopback host', async (t) => {
  const home = tempDir('kr-token-home-');
  const dataDir = tempDir('kr-token-data-');
  t.after(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });
  const open = await serve(['--data-dir', dataDir, '--no-token'], userEnv(home));
  try {
    assert.match(open.err(), /warning: --no-token: any local user and process can run code/);
    assert.match(open.out(), /auth: +none \(--no-token\); loopback only/);
    assert.ok(!existsSync(path.join(dataDir, 'token')));
    assert.equal((await fetch(`${open.url}/leaderboards`)).status, 200);
  } finally {
    await open.stop();
  }
  const wide = spawnSync(
    process.execPath,
    [cli, 'serve', '--host', '0.0.0.0', '--port', '0', '--no-token', '--data-dir', dataDir],
    { env: userEnv(home), encoding: 'utf8' },
  );
  assert.equal(wide.status, 2);
  assert.match(wide.stderr, /refusing to listen on 0\.0\.0\.0 without a token \(--no-token is for loopback only\)/);
  const both = spawnSync(
    process.execPath,
    [cli, 'serve', '--port', '0', '--no-token', '--token-file', path.join(home, 'x'), '--data-dir', dataDir],
    { env: userEnv(home), encoding: 'utf8' },
  );
  assert.equal(both.status, 2);
  assert.match(both.stderr, /--no-token and --token-file contradict each other/);
  const help = spawnSync(process.execPath, [cli, 'serve', '--help'], { env: userEnv(home), encoding: 'utf8' });
  assert.match(help.stdout.replace(/\s+/g, ' '), /visible to other users in `ps`/);
});

test("the CLI's embedded runner has a random token per start and refuses requests without it", async () => {
  const a = await startEmbedded();
  const b = await startEmbedded();
  try {
    assert.notEqual(a.token, b.token);
    assert.ok(a.token.length >= 40 && /^[A-Za-z0-9_-]+$/.test(a.token), 'base64url');
    assert.equal((await fetch(`${a.runner.url}/leaderboards`)).status, 401);
    assert.equal(
      (await fetch(`${a.runner.url}/leaderboards`, { headers: { Authorization: `Bearer ${b.token}` } })).status,
      401,
    );
    assert.equal(
      (await fetch(`${a.runner.url}/leaderboards`, { headers: { Authorization: `Bearer ${a.token}` } })).status,
      200,
    );
  } finally {
    for (const e of [a, b]) {
      await e.runner.close();
      await e.temp.remove();
    }
  }
});

test('the stored token goes only to the port its runner listens on, and only while it runs', async (t) => {
  const home = tempDir('kr-token-port-');
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const env = userEnv(home);
  // another program on loopback that a user might point the client at by mistake: it records what it was sent
  const seen: string[] = [];
  const { createServer } = await import('node:http');
  const other = createServer((req, res) => {
    seen.push(JSON.stringify(req.headers));
    res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"detail":"not here"}');
  });
  await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
  t.after(() => other.close());
  const otherUrl = `http://127.0.0.1:${(other.address() as { port: number }).port}`;

  const runner = await serve([], env);
  const token = readFileSync(path.join(home, '.local/state/kernel-runner/token'), 'utf8').trim();
  try {
    const wrongPort = await runCli(['submit', path.join(scripts, 'hello.py'), '--server', otherUrl], { env });
    assert.notEqual(wrongPort.code, 0);
    assert.ok(seen.length > 0, 'the client did talk to the other program');
    assert.ok(!seen.some((h) => h.includes(token)), 'and never sent it the token');
    const ok = await runCli(['submit', path.join(scripts, 'hello.py'), '--server', runner.url], { env });
    assert.equal(ok.code, 0, ok.stderr);
  } finally {
    await runner.stop();
  }
  assert.ok(
    !existsSync(path.join(home, '.local/state/kernel-runner/listening.json')),
    'a stopped runner no longer claims its port',
  );
});
