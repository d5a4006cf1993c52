// Private state: the data dir is 0700 and every file the runner writes in it 0600 (whatever the umask); an
// existing data dir open to others is closed at start, with a warning; artifact links come from --public-url or
// the listening address, never from the request's Host header.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { solutions, startTestRunner, tempDir, testBin, type TestRunner } from './helpers';

const correct = readFileSync(path.join(solutions, 'correct/map_add.py'), 'utf8');
const env = { ...process.env, PATH: `${testBin}${path.delimiter}${process.env.PATH ?? ''}` };
const token = 'private-state-token';
const BOUNDARY = 'krprivatestate';

process.umask(0o022); // the usual umask: files would be 0644 and folders 0755 if the runner did not say otherwise

/** A profile submission over node:http, so that the Host header is ours to choose; returns the result event. */
function profileVia(
  runner: TestRunner,
  host: string,
): Promise<{ results: Array<{ runs: Record<string, { profile?: { download_url?: string | null } }> }> }> {
  const body = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="map_add.py"\r\n\r\n${correct}\r\n--${BOUNDARY}--\r\n`,
  );
  const u = new URL(runner.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        method: 'POST',
        path: '/vectoradd_py/CPU/profile',
        headers: {
          Host: host,
          Authorization: `Bearer ${token}`,
          'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
          'Content-Length': body.length,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          if (res.statusCode !== 200) return reject(new Error(`${res.statusCode}: ${text}`));
          const frame = text.split('\n\n').find((f) => f.includes('event: result'));
          if (!frame) return reject(new Error(`no result event: ${text.slice(-500)}`));
          const data = frame
            .split('\n')
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).trim())
            .join('\n');
          resolve(JSON.parse(data) as never);
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function downloadUrls(result: Awaited<ReturnType<typeof profileVia>>): string[] {
  const urls = Object.values(result.results[0]!.runs).map((r) => r.profile?.download_url);
  assert.ok(urls.length > 0 && urls.every((u) => typeof u === 'string'), JSON.stringify(urls));
  return urls as string[];
}

/** Every folder and file under `root`, with its permission bits. */
function modes(root: string): Array<{ path: string; dir: boolean; mode: number }> {
  const out: Array<{ path: string; dir: boolean; mode: number }> = [];
  const walk = (p: string) => {
    const st = statSync(p);
    out.push({ path: path.relative(root, p) || '.', dir: st.isDirectory(), mode: st.mode & 0o777 });
    if (st.isDirectory()) for (const name of readdirSync(p)) walk(path.join(p, name));
  };
  walk(root);
  return out;
}

describe('private state', () => {
  let runner: TestRunner;
  let parent: string;
  let dataDir: string;
  before(async () => {
    parent = tempDir('kr-private-');
    dataDir = path.join(parent, 'state', 'kernel-runner'); // not there yet: the runner makes it
    runner = await startTestRunner({ dataDir, token, profiler: 'auto', env });
  });
  after(async () => {
    await runner.dispose();
    rmSync(parent, { recursive: true, force: true });
  });

  test('after a profile job (an artifact, events, results): the data dir and its folders are 0700, every file 0600', async () => {
    const urls = downloadUrls(await profileVia(runner, new URL(runner.url).host));
    assert.equal((await fetch(urls[0]!, { headers: { Authorization: `Bearer ${token}` } })).status, 200);
    await runner.close(); // every record saved
    const all = modes(dataDir);
    const files = all.filter((e) => !e.dir);
    for (const kind of ['job.json', 'events.sse', 'map_add.py', '.zip', 'runner.json']) {
      assert.ok(
        files.some((f) => f.path.endsWith(kind)),
        `a ${kind} was written: ${files.map((f) => f.path).join(', ')}`,
      );
    }
    const open = all.filter((e) => e.mode !== (e.dir ? 0o700 : 0o600));
    assert.deepEqual(
      open.map((e) => `${e.path} ${e.mode.toString(8)}`),
      [],
      'nothing readable by other users',
    );
  });

  test('artifact links use the listening address, whatever Host the request named', async () => {
    const again = await startTestRunner({ token, profiler: 'auto', env });
    try {
      const urls = downloadUrls(await profileVia(again, 'evil.example'));
      for (const u of urls) {
        assert.ok(u.startsWith(`${again.url}/jobs/`), u);
        assert.doesNotMatch(u, /evil\.example/);
      }
    } finally {
      await again.dispose();
    }
  });

  test('with publicUrl, artifact links are under it', async () => {
    const behindProxy = await startTestRunner({
      token,
      profiler: 'auto',
      env,
      publicUrl: 'https://runner.example.com',
    });
    try {
      const urls = downloadUrls(await profileVia(behindProxy, 'evil.example'));
      for (const u of urls)
        assert.match(u, /^https:\/\/runner\.example\.com\/jobs\/\d+\/artifacts\/job-\d+-profile\.\d+\.zip$/);
    } finally {
      await behindProxy.dispose();
    }
  });

  test('an existing data dir open to other users is made 0700 at start, with a warning line', async () => {
    const dir = tempDir('kr-open-');
    mkdirSync(path.join(dir, 'jobs'));
    chmodSync(dir, 0o755);
    const lines: string[] = [];
    const r = await startTestRunner({ dataDir: dir, log: (l) => lines.push(l) });
    try {
      assert.equal(statSync(dir).mode & 0o777, 0o700);
      assert.ok(
        lines.some((l) => /warning: data dir .* was readable by other users \(mode 0755\); it is now 0700/.test(l)),
        lines.join('\n'),
      );
    } finally {
      await r.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
