// Crash safety with real processes: a `kernel-runner serve` killed with SIGKILL mid-job never reuses an event id a
// client was given (the resume gets the interrupted end, numbered past it, not a 400); a `kernel-runner submit`
// whose runner is gone for good ends after a bounded number of reconnects, naming the job; SIGTERM of `serve`
// with a job running marks it interrupted and leaves no process behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { jobRecordSchema, type JobRecord } from '../../../src/core/protocol/api';
import { readHighWaterMark } from '../../../src/runner/eventLog';
import {
  marker,
  pidAlive,
  post,
  readSse,
  repoRoot,
  tempDir,
  terminal,
  waitFor,
  withMarker,
  type SseEvent,
  builtCli,
} from './helpers';

interface Serve {
  child: ChildProcess;
  url: string;
  stderr: () => string;
}

/** `kernel-runner serve` as a child process (the built CLI), on `dataDir`. */
async function startServe(dataDir: string): Promise<Serve> {
  const child = spawn(
    process.execPath,
    [
      builtCli(),
      'serve',
      '--port',
      '0',
      '--no-token',
      '--data-dir',
      dataDir,
      '--profiler',
      'none',
      '--heartbeat',
      '0.2',
      '--kill-grace',
      '1',
    ],
    {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (t: string) => (err += t));
  const lines = createInterface({ input: child.stdout! });
  const first = await Promise.race([
    once(lines, 'line').then(([line]) => line as string),
    once(child, 'exit').then(() => `exited: ${err}`),
  ]);
  const url = /listening on (http:\/\/\S+)/.exec(first)?.[1];
  assert.ok(url, first);
  lines.on('line', () => undefined); // keep reading stdout
  return { child, url, stderr: () => err };
}

async function kill(serve: Serve, signal: NodeJS.Signals): Promise<void> {
  if (serve.child.exitCode !== null || serve.child.signalCode !== null) return;
  const exited = once(serve.child, 'exit');
  serve.child.kill(signal);
  await exited;
}

async function record(url: string, id: number): Promise<JobRecord> {
  return jobRecordSchema.parse(await (await fetch(`${url}/jobs/${id}`)).json());
}

const ids = (events: SseEvent[]) => events.map((e) => Number(e.id));

/** The job's two marked processes (the program and its child), once both are there. */
function markedPair(mark: string): Promise<number[]> {
  return waitFor(
    `the two processes marked ${mark}`,
    () => {
      const found = withMarker(mark);
      return found.length >= 2 ? found : undefined;
    },
    10_000,
  );
}

/** Only if an assertion failed: the test's own processes, found by their marker, are not left behind. */
function killLeftovers(mark: string): void {
  for (const pid of withMarker(mark)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

/**
 * Re-executes itself with `mark` as its argument (same pid) and starts a child carrying it too, then prints a
 * numbered line every millisecond or so, for a long time.
 */
const chatty = (mark: string) =>
  [
    'import os, subprocess, sys, time',
    `if "${mark}" not in sys.argv:`,
    `    os.execv(sys.executable, [sys.executable, os.path.abspath(__file__), "${mark}"])`,
    `child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", "${mark}"])`,
    'print("started", flush=True)',
    'for i in range(200000):',
    '    print(f"line {i}", flush=True)',
    '    time.sleep(0.001)',
    '',
  ].join('\n');

test('SIGKILL mid-job: after a restart a resume from the highest id seen gets the interrupted end, numbered past it', async () => {
  const dataDir = tempDir('kr-crash-');
  const mark = marker();
  let first: Serve | undefined;
  let second: Serve | undefined;
  try {
    first = await startServe(dataDir);
    const res = await post(`${first.url}/script/CPU/test`, {
      fileName: 'chatty.py',
      content: chatty(mark),
      extensions: true,
    });
    assert.equal(res.status, 200);
    // read live output for a while, then kill the service while the stream is still flowing
    const seen = await readSse(res, (_ev, all) => all.filter((e) => e.event === 'output').length >= 300);
    const jobId = (seen[0]!.data as { job_id: number }).job_id;
    const pids = await markedPair(mark);
    assert.equal(pids.length, 2, 'the program and its child run');
    const highest = Math.max(...ids(seen));
    assert.deepEqual(
      ids(seen),
      ids(seen).map((_, i) => i + 1),
      'live ids are consecutive',
    );
    await kill(first, 'SIGKILL');
    const eventsPath = path.join(dataDir, 'jobs', String(jobId), 'events.sse');
    assert.ok(readHighWaterMark(eventsPath) >= highest, 'every id a client was given is covered by the mark on disk');
    // The client may be ahead of the file (a batch goes to clients as it is handed to the file stream, and a SIGKILL
    // loses what Node had not written yet). Whether this run lost any is luck: make it so, by cutting the file's last
    // frames, as such a crash leaves it (the torn tail of the last kept frame too).
    const log = readFileSync(eventsPath);
    const cut = log.indexOf(`\n\nid: ${highest - 40}\n`);
    assert.ok(cut > 0, 'the file holds the frames the client saw');
    truncateSync(eventsPath, cut + 7);

    second = await startServe(dataDir);
    const rec = await record(second.url, jobId);
    assert.equal(rec.state, 'interrupted');
    assert.ok(
      rec.last_event_id > highest,
      `the record's last id ${rec.last_event_id} is past the highest seen ${highest}`,
    );

    for (const resume of [
      () => fetch(`${second!.url}/jobs/${jobId}/events`, { headers: { 'Last-Event-ID': String(highest) } }),
      () => fetch(`${second!.url}/jobs/${jobId}/events?after=${highest}`),
    ]) {
      const answer = await resume();
      assert.equal(answer.status, 200, 'a resume from an id the client was given is never a 400');
      const rest = await readSse(answer);
      assert.ok(rest.length >= 1);
      assert.ok(
        ids(rest).every((id) => id > highest),
        `ids ${ids(rest).join(',')} are all past ${highest}: none reused`,
      );
      const end = terminal(rest);
      assert.equal(end.event, 'error');
      assert.match((end.data as { detail: string }).detail, /Interrupted/);
      assert.equal((end.data as { status_code?: number }).status_code, 503);
      assert.equal(Number(end.id), rec.last_event_id);
    }

    // a full replay: strictly increasing ids, one terminal event, the interrupted end last
    const all = await readSse(await fetch(`${second.url}/jobs/${jobId}/events`));
    const allIds = ids(all);
    assert.ok(
      allIds.every((id, i) => i === 0 || id > allIds[i - 1]!),
      'strictly increasing',
    );
    assert.equal(all.filter((e) => e.event === 'error' || e.event === 'result').length, 1);
    assert.equal(terminal(all).event, 'error');
    assert.ok(
      !allIds.some((id) => id > highest - 40 && id <= highest),
      'the lost frames are not renumbered into ids the client saw',
    );
    // what the first client saw and what is on disk agree where both have it: no id names two events
    const onDisk = new Map(all.map((e) => [e.id, e.raw]));
    const onBoth = seen.filter((e) => onDisk.has(e.id));
    assert.ok(onBoth.length > 0, 'some events the client saw are on disk');
    assert.deepEqual(
      onBoth.map((e) => [e.id, onDisk.get(e.id)]),
      onBoth.map((e) => [e.id, e.raw]),
    );
    await waitFor(
      'the job left behind by the killed runner to be gone',
      () => (pids.every((p) => !pidAlive(p)) ? true : undefined),
      10_000,
    );
    assert.deepEqual(withMarker(mark), []);
  } finally {
    if (first) await kill(first, 'SIGKILL');
    if (second) await kill(second, 'SIGTERM');
    killLeftovers(mark);
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('kernel-runner submit against a runner gone for good ends after a bounded number of reconnects, naming the job', async () => {
  const dataDir = tempDir('kr-crash-');
  const work = tempDir('kr-crash-work-');
  const mark = marker();
  let serve: Serve | undefined;
  try {
    serve = await startServe(dataDir);
    const file = path.join(work, 'chatty.py');
    writeFileSync(file, chatty(mark));
    const started = Date.now();
    const cli = spawn(process.execPath, [builtCli(), 'submit', file, '--server', serve.url, '--mode', 'test'], {
      cwd: repoRoot, // where tsx resolves
      // a short wait between reconnects, so that the attempts run out in a second or so
      env: { ...process.env, NO_COLOR: '1', KERNEL_RUNNER_RECONNECT_MS: '20' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    cli.stderr!.setEncoding('utf8').on('data', (t: string) => (stderr += t));
    const sawOutput = new Promise<void>((resolve) => {
      cli.stdout!.setEncoding('utf8').on('data', (t: string) => {
        stdout += t;
        if (/line 50\b/.test(stdout)) resolve();
      });
    });
    const exited = once(cli, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    await Promise.race([sawOutput, exited.then(() => assert.fail(`submit ended early: ${stdout}\n${stderr}`))]);
    await kill(serve, 'SIGKILL'); // gone for good: nothing listens there any more
    const [code] = await exited;
    const took = Date.now() - started;
    const jobId = Number(/job (\d+)/.exec(stderr + stdout)?.[1] ?? NaN);
    assert.notEqual(code, 0, 'a stream given up is a failure');
    assert.match(stderr, /Gave up following job \d+ after 20 reconnects/, stderr);
    assert.match(stderr, /kernel-runner submissions show \d+ --server http:\/\/127\.0\.0\.1:\d+/, stderr);
    assert.match(stderr, /GET http:\/\/127\.0\.0\.1:\d+\/jobs\/\d+ shows it later/, stderr);
    const named = /Gave up following job (\d+)/.exec(stderr)?.[1];
    assert.equal(Number(named), jobId);
    const attempts = stderr.split('\n').filter((l) => /resuming job \d+ after event/.test(l)).length;
    assert.ok(attempts <= 20, `reconnected ${attempts} times`);
    assert.ok(took < 90_000, `ended after ${took} ms`);
  } finally {
    if (serve) await kill(serve, 'SIGKILL');
    killLeftovers(mark);
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  }
});

test('SIGTERM of serve with a job running: the job is interrupted after a restart and no process is left', async () => {
  const dataDir = tempDir('kr-crash-');
  const mark = marker();
  let first: Serve | undefined;
  let second: Serve | undefined;
  try {
    first = await startServe(dataDir);
    const res = await post(`${first.url}/script/CPU/test`, {
      fileName: 'chatty.py',
      content: chatty(mark),
      extensions: true,
    });
    const seen = await readSse(res, (_ev, all) => all.filter((e) => e.event === 'output').length >= 20);
    const jobId = (seen[0]!.data as { job_id: number }).job_id;
    const pids = await markedPair(mark);
    assert.equal(pids.length, 2);
    const highest = Math.max(...ids(seen));
    const exited = once(first.child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    first.child.kill('SIGTERM');
    const [code] = await exited;
    assert.equal(code, 0, first.stderr());
    assert.match(first.stderr(), /SIGTERM: stopping jobs/);
    assert.ok(
      pids.every((p) => !pidAlive(p)),
      `processes left: ${pids.filter(pidAlive).join(', ')}`,
    );
    assert.deepEqual(withMarker(mark), [], 'no process of the job is left');
    // the record on disk says it, before anything else reads the data dir
    const stored = JSON.parse(readFileSync(path.join(dataDir, 'jobs', String(jobId), 'job.json'), 'utf8')) as JobRecord;
    assert.equal(stored.state, 'interrupted');
    assert.match(stored.error!.detail, /Interrupted: the runner was stopped while this job was running/);

    second = await startServe(dataDir);
    const rec = await record(second.url, jobId);
    assert.equal(rec.state, 'interrupted');
    const rest = await readSse(
      await fetch(`${second.url}/jobs/${jobId}/events`, { headers: { 'Last-Event-ID': String(highest) } }),
    );
    assert.ok(ids(rest).every((id) => id > highest));
    assert.equal(terminal(rest).event, 'error');
    assert.equal(rest.filter((e) => e.event === 'error').length, 1, 'one terminal event: the restart adds none');
  } finally {
    if (first) await kill(first, 'SIGKILL');
    if (second) await kill(second, 'SIGTERM');
    killLeftovers(mark);
    rmSync(dataDir, { recursive: true, force: true });
  }
});
