// Backpressure from the event log to the job's pipes: a log whose file does not keep up (here a FIFO nobody reads
// yet, the slowest disk there is) asks the job to wait instead of buffering, and a job asked to wait is not read
// (its pipe fills and the program blocks) until the log has caught up; nothing is lost either way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, existsSync, mkdtempSync, readFileSync, rmSync, watch } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openEventLog } from '../../../src/runner/eventLog';
import { LOG_BACKLOG_BYTES } from '../../../src/runner/limits';
import { runProcess } from '../../../src/runner/executor';

test('a log whose file does not keep up asks for a wait past its backlog mark, and lets go once the file caught up', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kr-log-pressure-'));
  try {
    const fifo = path.join(dir, 'events.sse');
    execFileSync('mkfifo', [fifo]);
    // the reader opens the FIFO (so the log's open completes) and reads nothing until told
    const reader = createReadStream(fifo, { highWaterMark: 1 << 20 });
    reader.pause();
    const log = openEventLog(fifo, 0);
    const line = JSON.stringify({ stream: 'stdout', text: 'x'.repeat(1000), noise: false });
    let appended = 0;
    while (appended < LOG_BACKLOG_BYTES + (1 << 20)) {
      log.append('output', line);
      appended += line.length;
    }
    log.flush();
    const wait = log.pressure();
    assert.ok(wait, `no wait asked with ${appended} bytes not written`);
    assert.equal(log.pressure(), wait, 'one wait for all who ask');
    let received = 0;
    reader.on('data', (chunk) => (received += chunk.length));
    reader.resume();
    await wait;
    assert.ok(received > 0);
    assert.equal(log.pressure(), null, 'caught up: no wait');
    const closed = log.close();
    await Promise.all([closed, once(reader, 'end')]);
    assert.ok(received >= appended, `every byte reached the file: ${received} of ${appended}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('while the output pressure holds, the job is not read: its pipe fills and it blocks; then every line arrives in order', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kr-pipe-hold-'));
  try {
    const blocked = path.join(dir, 'blocked');
    const lines = 1 << 19; // 4 MiB of numbered lines
    // writes without blocking until a write would block (nobody reads the pipe), says how far it got, then writes
    // the rest blocking
    const program = `
import os
data = b"".join(b"%07d\\n" % i for i in range(${lines}))
os.set_blocking(1, False)
at = 0
while at < len(data):
    try:
        at += os.write(1, data[at:at + 65536])
    except BlockingIOError:
        with open(${JSON.stringify(blocked)} + ".part", "w") as f:
            f.write(str(at))
        os.rename(${JSON.stringify(blocked)} + ".part", ${JSON.stringify(blocked)})
        os.set_blocking(1, True)
`;
    let release!: () => void;
    const hold = new Promise<void>((resolve) => (release = resolve));
    let holding = true;
    let asked = 0;
    let settled = false;
    const text: string[] = [];
    const run = runProcess({
      command: 'python3',
      args: ['-c', program],
      cwd: dir,
      env: { PATH: process.env.PATH },
      timeoutMs: 600_000,
      graceMs: 1000,
      capBytes: 1024,
      onLine: (_stream, line) => text.push(line.text),
      outputPressure: () => {
        asked++;
        return holding ? hold : null;
      },
    }).finally(() => (settled = true));
    // the program's own word that its pipe is full
    await waitForFile(blocked);
    const reached = Number(readFileSync(blocked, 'utf8'));
    const readWhileHeld = text.length * 8;
    assert.ok(reached < lines * 8, `the program blocked at ${reached} bytes, before its end`);
    assert.ok(readWhileHeld < 1 << 20, `${readWhileHeld} bytes read while held`);
    assert.equal(settled, false, 'the program could not finish while its output was not read');
    holding = false;
    release();
    const out = await run;
    assert.equal(out.exitCode, 0, out.stderr);
    assert.ok(asked >= 1);
    assert.equal(text.length, lines, 'every line arrived');
    assert.ok(
      text.every((t, i) => Number(t) === i),
      'once each, in order',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Resolves once `file` exists (fs.watch on its folder, checked once first). */
function waitForFile(file: string): Promise<void> {
  return new Promise<void>((resolve) => {
    const watcher = watch(path.dirname(file), () => {
      if (existsSync(file)) {
        watcher.close();
        resolve();
      }
    });
    if (existsSync(file)) {
      watcher.close();
      resolve();
    }
  });
}
