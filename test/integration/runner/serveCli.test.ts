// `kernel-runner serve` as users start it, and retention of old jobs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { resultEventSchema } from '../../../src/core/protocol/api';
import {
  builtCli,
  post,
  readSse,
  repoRoot,
  startTestRunner,
  submitAndRead,
  tempDir,
  terminal,
  waitFor,
} from './helpers';

function dirBytes(p: string): number {
  let total = 0;
  for (const e of readdirSync(p, { withFileTypes: true }))
    total += e.isDirectory() ? dirBytes(path.join(p, e.name)) : statSync(path.join(p, e.name)).size;
  return total;
}

test('serve prints where it listens and what it serves, and stops cleanly on SIGTERM', async () => {
  const dataDir = tempDir();
  const server = spawn(
    process.execPath,
    [
      builtCli(),
      'serve',
      '--port',
      '0',
      '--no-token',
      '--data-dir',
      dataDir,
      '--gpu-name',
      'MI300',
      '--profiler',
      'none',
    ],
    {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  try {
    const lines = createInterface({ input: server.stdout! });
    const out: string[] = [];
    lines.on('line', (l) => out.push(l));
    // however long a busy machine takes to start it, until it says or exits
    await new Promise<void>((resolve, reject) => {
      const early = (code: number | null) =>
        reject(new Error(`serve exited (${code}) before its startup lines: ${out.join('\n')}`));
      server.once('exit', early);
      lines.on('line', (l) => {
        if (!l.includes('auth:')) return;
        server.off('exit', early);
        resolve();
      });
    });
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out[0]!)?.[1];
    assert.ok(url, out.join('\n'));
    const text = out.join('\n');
    assert.match(text, /GPUs: +MI300/);
    assert.match(text, /profiler: +none/);
    assert.match(text, /problems: +.*vectoradd_py.*script/);
    assert.match(text, /auth: +none \(--no-token\); loopback only/);
    const health = (await (await fetch(`${url}/health`)).json()) as { gpus: string[] };
    assert.deepEqual(health.gpus, ['MI300']);
    const events = await submitAndRead(`${url}/script/MI300/test`, {
      fileName: 'a.py',
      content: 'print("on MI300 by name")\n',
    });
    assert.equal(terminal(events).event, 'result');
    server.kill('SIGTERM');
    const [code] = (await once(server, 'exit')) as [number];
    assert.equal(code, 0);
  } finally {
    if (server.exitCode === null) server.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('serve refuses a non-loopback host without a token, and bad flags, with exit code 2', (t) => {
  const scratch = tempDir();
  t.after(() => rmSync(scratch, { recursive: true, force: true }));
  const open = spawnSync(
    process.execPath,
    [builtCli(), 'serve', '--host', '0.0.0.0', '--no-token', '--port', '0', '--data-dir', scratch],
    { cwd: repoRoot, encoding: 'utf8' },
  );
  assert.equal(open.status, 2);
  assert.match(open.stderr, /refusing to listen on 0\.0\.0\.0 without a token/);
  const port = spawnSync(process.execPath, [builtCli(), 'serve', '--port', 'abc'], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  assert.equal(port.status, 2);
  assert.match(port.stderr, /--port takes a whole number/);
  const prof = spawnSync(process.execPath, [builtCli(), 'serve', '--profiler', 'nsight', '--port', '0'], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  assert.equal(prof.status, 2);
  assert.match(prof.stderr, /--profiler takes auto, rocprofv3, rocprof, none/);
  const forced = spawnSync(
    process.execPath,
    [builtCli(), 'serve', '--profiler', 'rocprofv3', '--port', '0', '--data-dir', scratch],
    {
      cwd: repoRoot,
      encoding: 'utf8',
      env: { ...process.env, PATH: path.dirname(process.execPath) },
    },
  );
  assert.equal(forced.status, 2);
  assert.match(forced.stderr, /rocprofv3 was not found on PATH/);
});

test('retention: finished jobs past the age or over the size budget are deleted, oldest first', async () => {
  const dataDir = tempDir();
  try {
    const first = await startTestRunner({ dataDir });
    for (const n of [1, 2, 3]) {
      const events = await submitAndRead(`${first.url}/script/CPU/test`, {
        fileName: `j${n}.py`,
        content: `print(${n})\n`,
      });
      assert.equal(terminal(events).event, 'result');
    }
    await first.close();
    const newest = dirBytes(path.join(dataDir, 'jobs', '3'));
    const bySize = await startTestRunner({ dataDir, retention: { maxTotalBytes: newest + 10 } });
    await waitFor('size retention', async () =>
      (await fetch(`${bySize.url}/jobs/1`)).status === 404 ? true : undefined,
    );
    assert.equal((await fetch(`${bySize.url}/jobs/2`)).status, 404);
    assert.equal((await fetch(`${bySize.url}/jobs/3`)).status, 200);
    await bySize.close();
    const byAge = await startTestRunner({ dataDir, retention: { maxAgeDays: 0 } });
    await waitFor('age retention', async () =>
      (await fetch(`${byAge.url}/jobs/3`)).status === 404 ? true : undefined,
    );
    const fresh = await post(`${byAge.url}/submission/script/CPU/test`, { fileName: 'new.py', content: 'print(4)\n' });
    const id = ((await fresh.json()) as { details: { id: number } }).details.id;
    assert.equal(id, 4, 'ids are not reused after retention');
    assert.equal(terminal(await readSse(await fetch(`${byAge.url}/jobs/${id}/events`))).event, 'result');
    await byAge.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('retention never deletes a live job, even one over the size budget; it goes once finished', async () => {
  const dataDir = tempDir();
  // the release flag lives outside the data dir, which a job cannot see (sandbox.ts); open to the job's user
  const flagDir = tempDir('kr-flag-');
  chmodSync(flagDir, 0o755);
  const flag = path.join(flagDir, 'release-b');
  try {
    const first = await startTestRunner({ dataDir });
    assert.equal(
      terminal(await submitAndRead(`${first.url}/script/CPU/test`, { fileName: 'a.py', content: 'print("a")\n' }))
        .event,
      'result',
    );
    await first.close();
    // room for job 1 and 50 KB more: job 2 outgrows that while it runs (its event log), so a sweep then has to choose
    const budget = dirBytes(path.join(dataDir, 'jobs', '1')) + 50_000;
    const runner = await startTestRunner({ dataDir, retention: { maxTotalBytes: budget }, retentionIntervalMs: 100 });
    try {
      const b = `import os, time\nfor i in range(2000):\n    print(f"{i:05d} " + "b" * 94)\nprint("waiting", flush=True)\nwhile not os.path.exists(${JSON.stringify(flag)}):\n    time.sleep(0.05)\nprint("done")\n`;
      const accepted = (await (
        await post(`${runner.url}/submission/script/CPU/test`, { fileName: 'b.py', content: b })
      ).json()) as { details: { id: number } };
      const id = accepted.details.id;
      const stream = readSse(await fetch(`${runner.url}/jobs/${id}/events`));
      await waitFor('job 1 to be swept while job 2 runs', async () =>
        (await fetch(`${runner.url}/jobs/1`)).status === 404 ? true : undefined,
      );
      assert.ok(dirBytes(path.join(dataDir, 'jobs', String(id))) > budget, 'the live job alone is over the budget');
      const live = (await (await fetch(`${runner.url}/jobs/${id}`)).json()) as { state: string };
      assert.equal(live.state, 'running', 'and it is kept');
      writeFileSync(flag, '');
      const events = await stream;
      const run = resultEventSchema.parse(terminal(events).data).results[0]!.runs.test!.run!;
      assert.match(run.stdout, /done\n$/);
      await waitFor('job 2 to be swept once finished', async () =>
        (await fetch(`${runner.url}/jobs/${id}`)).status === 404 ? true : undefined,
      );
    } finally {
      await runner.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(flagDir, { recursive: true, force: true });
  }
});
