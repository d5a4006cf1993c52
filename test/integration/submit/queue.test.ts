// `kernel-runner submit` behind another job on a one-device runner: it says where it is in line, and nothing when
// its job runs at once. The command runs in-process against a real runner on a random port.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { runSubmit } from '../../../src/cli/commands/submit';
import { queueLabel } from '../../../src/core/protocol/api';
import { post, readSse, startTestRunner, tempDir, waitFor } from '../runner/helpers';

function capture() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (d: Buffer) => (text += d.toString()));
  return { stream, text: () => text };
}

test('queue labels: 0 is starting, n is queued #n', () => {
  assert.equal(queueLabel(0), 'starting');
  assert.equal(queueLabel(1), 'queued #1');
  assert.equal(queueLabel(2), 'queued #2');
});

test('submit says "queued #1" behind a running job, and no queue line when it runs at once', async () => {
  const runner = await startTestRunner({ killGraceMs: 300 });
  const dir = tempDir('kr-queue-');
  try {
    const file = path.join(dir, 'quick.py');
    writeFileSync(file, 'print("quick ran")\n');
    const io = () => ({ out: capture(), err: capture() });

    const alone = io();
    assert.equal(
      await runSubmit(
        file,
        { server: runner.url, mode: 'test' },
        { stdout: alone.out.stream, stderr: alone.err.stream, color: false, cwd: dir },
      ),
      0,
    );
    assert.doesNotMatch(alone.err.text(), /queued|starting/, alone.err.text());

    const blocker = await post(`${runner.url}/script/CPU/test`, {
      fileName: 'blocker.py',
      content: 'import time\nprint("blocking", flush=True)\ntime.sleep(60)\n',
      extensions: true,
    });
    const blockerEvents = readSse(blocker);
    const blockerId = await waitFor('the blocker to run', async () => {
      const list = (await (await fetch(`${runner.url}/user/submissions`)).json()) as Array<{
        id: number;
        file_name: string;
        done: boolean;
      }>;
      const id = list.find((s) => s.file_name === 'blocker.py')?.id;
      if (id === undefined) return undefined;
      return ((await (await fetch(`${runner.url}/jobs/${id}`)).json()) as { state: string }).state === 'running'
        ? id
        : undefined;
    });
    const behind = io();
    const submitted = runSubmit(
      file,
      { server: runner.url, mode: 'test' },
      { stdout: behind.out.stream, stderr: behind.err.stream, color: false, cwd: dir },
    );
    await waitFor('the queue line', () => (behind.err.text().includes('queued #') ? true : undefined));
    await fetch(`${runner.url}/jobs/${blockerId}`, { method: 'DELETE' });
    assert.equal(await submitted, 0, behind.err.text());
    await blockerEvents;
    assert.match(behind.err.text(), /^kernel-runner: queued #1 \(waiting for a free device\)$/m);
    assert.doesNotMatch(behind.err.text(), /queued #0|queued #2/);
  } finally {
    await runner.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
});
