// What the BUILT CLI (dist/cli.cjs) loads of Node for `kernel-runner submit` with its embedded runner, and that
// what the bundle loads on demand instead (scripts/build.mjs: axios's https-proxy-agent) still works when needed.
// The source-level check of which of our modules a command loads is test/unit/lint/startup.test.ts.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import path from 'node:path';
import { tempDirsRemovedAfter } from '../support/tempDirs';
import { ensureBuilt, repoRoot, runCli } from './submit/helpers';

const tempDir = tempDirsRemovedAfter('kr-bundle-');

before(ensureBuilt);

test('`kernel-runner submit` with its embedded runner loads no TLS, HTTP/2 or fetch (undici) of Node, and runs the file', async () => {
  const dir = tempDir('loads');
  const preload = path.join(dir, 'record-builtins.cjs');
  const log = path.join(dir, 'builtins.txt');
  writeFileSync(
    preload,
    `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(log)}, process.moduleLoadList.join('\\n')));\n`,
  );
  writeFileSync(path.join(dir, 'hello.py'), 'print("hello from the bundle")\n');
  const r = await runCli(['submit', 'hello.py'], {
    cwd: dir,
    env: { NODE_OPTIONS: `--require ${preload}`, XDG_STATE_HOME: dir },
  });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^hello from the bundle$/m);
  const loaded = readFileSync(log, 'utf8').split('\n');
  assert.ok(loaded.includes('NativeModule http'), 'the list is the real one (the client and runner use node:http)');
  const unexpected = loaded.filter((m) =>
    /^NativeModule (tls|_tls_wrap|https|http2|internal\/deps\/undici\/undici)$/.test(m),
  );
  assert.deepEqual(unexpected, [], `loaded for a loopback submit: ${unexpected.join(', ')}`);
});

test('an https runner behind HTTPS_PROXY is reached through the proxy (the proxy agent is loaded when it is needed)', async () => {
  const dir = tempDir('proxy');
  writeFileSync(path.join(dir, 'hello.py'), 'print("hello")\n');
  const requests: string[] = [];
  const proxy = createServer((socket: Socket) => {
    socket.once('data', (chunk) => {
      requests.push(chunk.toString('latin1').split('\r\n')[0] ?? '');
      socket.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
    });
    socket.on('error', () => undefined);
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  const port = (proxy.address() as AddressInfo).port;
  try {
    const env = {
      HTTPS_PROXY: `http://127.0.0.1:${port}`,
      https_proxy: '',
      NO_PROXY: '',
      no_proxy: '',
      XDG_STATE_HOME: dir,
    };
    const { code, stderr } = await runCli(
      ['submit', 'hello.py', '--server', 'https://runner.example.test:8443', '--token', 'not-sent-to-the-proxy'],
      { cwd: dir, env },
    );
    assert.notEqual(code, 0, 'no runner answered: the command fails');
    assert.deepEqual(
      requests.slice(0, 1),
      ['CONNECT runner.example.test:8443 HTTP/1.1'],
      `the proxy was asked to tunnel to the runner (stderr: ${stderr})`,
    );
    assert.ok(!stderr.includes('not-sent-to-the-proxy'), 'the token is not printed');
    assert.match(stderr, /kernel-runner: /, 'a clear error, not a crash');
    assert.doesNotMatch(stderr, /TypeError|is not a constructor|at .*cli-main\.cjs/, stderr);
  } finally {
    proxy.close();
  }
});

test('an https runner is reached over TLS (node:https, loaded when it is needed): its answer is shown', async () => {
  const dir = tempDir('https');
  writeFileSync(path.join(dir, 'hello.py'), 'print("hello")\n');
  const tls = path.join(repoRoot, 'test/fixtures/tls');
  const seen: string[] = [];
  const server = createHttpsServer(
    { key: readFileSync(path.join(tls, 'localhost.key')), cert: readFileSync(path.join(tls, 'localhost.crt')) },
    (req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
      req.resume();
      if (req.url === '/health')
        return void res
          .writeHead(200, { 'Content-Type': 'application/json' })
          .end(JSON.stringify({ status: 'ok', version: '0.0.0-https-test', gpus: ['CPU'] }));
      res
        .writeHead(401, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ detail: 'refused by the https test server' }));
    },
  );
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  try {
    const env = { NODE_EXTRA_CA_CERTS: path.join(tls, 'localhost.crt'), XDG_STATE_HOME: dir };
    const { code, stderr } = await runCli(
      ['submit', 'hello.py', '--server', `https://localhost:${port}`, '--token', 'tls-token'],
      { cwd: dir, env },
    );
    assert.notEqual(code, 0);
    assert.ok(seen.includes('GET /health Bearer tls-token'), `the health check arrived over TLS: ${seen.join(' | ')}`);
    assert.match(stderr, /refused by the https test server/, "the runner's own answer is shown");
    assert.doesNotMatch(stderr, /TypeError|is not a function|at .*cli-main\.cjs/, stderr);
  } finally {
    server.close();
  }
});
