// Jobs, results and artifacts survive a restart; jobs cut off by a stop or a crash come back as `interrupted`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import {
  jobRecordSchema,
  resultEventSchema,
  userSubmissionDetailSchema,
  type JobRecord,
} from '../../../src/core/protocol/api';
import { detectIsolation } from '../../../src/runner/isolation';
import { StoreError } from '../../../src/runner/store';
import { expandOutput, outputEventSchema } from '../../../src/core/protocol/api';
import {
  marker,
  pidAlive,
  post,
  readSse,
  repoRoot,
  startTestRunner,
  submitAndRead,
  tempDir,
  terminal,
  testBin,
  waitFor,
  withMarker,
  builtCli,
} from './helpers';

const env = { ...process.env, PATH: `${testBin}${path.delimiter}${process.env.PATH ?? ''}` };
const sleeper = 'import os, time\nprint(f"pid {os.getpid()}", flush=True)\ntime.sleep(60)\n';

async function record(url: string, id: number): Promise<JobRecord> {
  return jobRecordSchema.parse(await (await fetch(`${url}/jobs/${id}`)).json());
}

test('restart on the same data dir: finished job, result and artifact are still there; stopped jobs are interrupted', async () => {
  const dataDir = tempDir();
  try {
    const first = await startTestRunner({ dataDir, profiler: 'rocprofv3', env });
    const done = await submitAndRead(`${first.url}/script/CPU/profile`, {
      fileName: 'p.py',
      content: 'print("kept")\n',
      extensions: true,
    });
    const doneId = (done[0]!.data as { job_id: number }).job_id;
    const profile = resultEventSchema.parse(terminal(done).data).results[0]!.runs['profile.0']!.profile!;
    const zip = Buffer.from(await (await fetch(profile.download_url!)).arrayBuffer());

    // one job running, one queued behind it, when the runner stops
    const running = (await (
      await post(`${first.url}/submission/script/CPU/test`, { fileName: 'sleep.py', content: sleeper })
    ).json()) as { details: { id: number } };
    const queued = (await (
      await post(`${first.url}/submission/script/CPU/test`, { fileName: 'later.py', content: 'print(1)\n' })
    ).json()) as { details: { id: number } };
    const follow = readSse(await fetch(`${first.url}/jobs/${running.details.id}/events`));
    await waitFor('the job to run', async () =>
      (await record(first.url, running.details.id)).state === 'running' ? true : undefined,
    );
    await first.close();
    const followed = await follow;
    assert.equal(terminal(followed).event, 'error', 'a follower sees the interruption');

    const second = await startTestRunner({ dataDir, profiler: 'rocprofv3', env });
    try {
      const rec = await record(second.url, doneId);
      assert.equal(rec.state, 'succeeded');
      assert.deepEqual(rec.result, resultEventSchema.parse(terminal(done).data));
      const again = Buffer.from(
        await (await fetch(`${second.url}/jobs/${doneId}/artifacts/${profile.artifact}`)).arrayBuffer(),
      );
      assert.deepEqual(again, zip);
      const replay = await readSse(await fetch(`${second.url}/jobs/${doneId}/events`));
      assert.deepEqual(
        replay.map((e) => e.raw),
        done.map((e) => e.raw),
      );

      for (const id of [running.details.id, queued.details.id]) {
        const r = await record(second.url, id);
        assert.equal(r.state, 'interrupted');
        assert.equal(r.error?.status_code, 503);
        assert.match(r.error!.detail, /Interrupted/);
        const detail = userSubmissionDetailSchema.parse(
          await (await fetch(`${second.url}/user/submissions/${id}`)).json(),
        );
        assert.equal(detail.done, true);
        assert.equal(detail.job?.status, 'failed');
        assert.equal(detail.job?.state, 'interrupted');
        const events = await readSse(await fetch(`${second.url}/jobs/${id}/events`));
        assert.equal(terminal(events).event, 'error');
        assert.equal(events.filter((e) => e.event === 'error').length, 1, 'one terminal event, not two');
      }
      const next = (await (
        await post(`${second.url}/submission/script/CPU/test`, { fileName: 'n.py', content: 'print(2)\n' })
      ).json()) as { details: { id: number } };
      assert.ok(next.details.id > queued.details.id, 'ids are never reused');
      await assert.rejects(
        startTestRunner({ dataDir }),
        (err: unknown) => err instanceof StoreError && /already used/.test(err.message),
      );
    } finally {
      await second.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

/** Process group and start time (clock ticks since boot) of a process, from /proc/<pid>/stat. */
function statOf(pid: number): { pgrp: number; startTicks: number } {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { pgrp: Number(fields[2]), startTicks: Number(fields[19]) };
}

// Under both isolations: the default (a PID namespace where the kernel allows it: the job's processes die with the
// SIGKILLed runner itself, by pdeathsig) and KERNEL_RUNNER_ISOLATION=process-group (they outlive it, and the next
// start kills the group the record names).
for (const mode of ['default', 'process-group'] as const) {
  const serveEnv: NodeJS.ProcessEnv =
    mode === 'default' ? { ...process.env } : { ...process.env, KERNEL_RUNNER_ISOLATION: 'process-group' };
  if (mode === 'default') delete serveEnv.KERNEL_RUNNER_ISOLATION;
  const kind = detectIsolation(serveEnv).kind;
  const outlives = kind !== 'pid-namespace';

  test(`a crashed runner (SIGKILL, isolation ${mode}: ${kind}): nothing of its job survives the next start, which marks the job interrupted`, async () => {
    const dataDir = tempDir();
    const mark = marker();
    let pids: number[] = [];
    // the job's program (re-executed with the marker, same pid) and a grandchild in the same process group, both
    // ignoring SIGINT and SIGTERM
    const family = [
      'import os, signal, subprocess, sys, time',
      `if "${mark}" not in sys.argv:`,
      `    os.execv(sys.executable, [sys.executable, os.path.abspath(__file__), "${mark}"])`,
      'signal.signal(signal.SIGINT, signal.SIG_IGN)',
      'signal.signal(signal.SIGTERM, signal.SIG_IGN)',
      `child = subprocess.Popen([sys.executable, "-c", "import signal, time; signal.signal(signal.SIGINT, signal.SIG_IGN); time.sleep(60)", "${mark}"])`,
      'print("started", flush=True)',
      'time.sleep(60)',
      '',
    ].join('\n');
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
        '--profiler',
        'none',
        '--heartbeat',
        '0.2',
      ],
      {
        cwd: repoRoot,
        env: serveEnv,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      const lines = createInterface({ input: server.stdout! });
      const [first] = (await once(lines, 'line')) as [string];
      const url = /listening on (http:\/\/\S+)/.exec(first)?.[1];
      assert.ok(url, first);
      const accepted = (await (
        await post(`${url}/submission/script/CPU/test`, { fileName: 'family.py', content: family })
      ).json()) as { details: { id: number } };
      const id = accepted.details.id;
      const events = await readSse(await fetch(`${url}/jobs/${id}/events`), (ev) => ev.event === 'output');
      assert.equal(expandOutput(outputEventSchema.parse(events[events.length - 1]!.data)).at(-1)?.text, 'started');
      pids = await waitFor(
        'the two marked processes',
        () => {
          const found = withMarker(mark);
          return found.length >= 2 ? found : undefined;
        },
        10_000,
      );
      assert.equal(pids.length, 2);
      // both in one process group, the job's
      const groups = new Set(pids.map((p) => statOf(p).pgrp));
      assert.equal(groups.size, 1, `one process group: ${[...groups].join(', ')}`);
      const [pgid] = [...groups] as [number];
      assert.ok(pgid > 1);
      // the record names that running process group (its leader, with its start time) before anything can go wrong
      const stored = await waitFor('the process group in job.json', () => {
        const rec = JSON.parse(readFileSync(path.join(dataDir, 'jobs', String(id), 'job.json'), 'utf8')) as {
          process?: { pgid: number; start_ticks: number } | null;
        };
        return rec.process?.pgid === pgid ? rec.process : undefined;
      });
      assert.ok(stored.start_ticks > 0);
      assert.equal(stored.start_ticks, statOf(pgid).startTicks, "the stored start time is the group leader's");
      assert.equal(
        pids.includes(pgid),
        kind === 'process-group',
        'without a namespace the program leads the group itself (in one, its init does)',
      );
      server.kill('SIGKILL');
      await once(server, 'exit');
      if (!outlives)
        await waitFor(
          'the namespace to end with the runner',
          () => (pids.every((p) => !pidAlive(p)) ? true : undefined),
          30_000,
        );
      assert.equal(
        pids.every(pidAlive),
        outlives,
        outlives ? 'a SIGKILLed runner cannot stop its children itself' : 'the namespace ended with the runner',
      );

      const logged: string[] = [];
      const runner = await startTestRunner({ dataDir, env: serveEnv, log: (line) => logged.push(line) });
      try {
        await waitFor(
          'the orphaned group to be gone',
          () => (pids.every((p) => !pidAlive(p)) ? true : undefined),
          30_000,
        );
        assert.deepEqual(withMarker(mark), [], 'nothing of the job is left');
        assert.equal(
          logged.some((l) => l.includes(`killed process group ${pgid}`)),
          outlives,
          `the new runner killed the group only if it outlived the old: ${logged.join('\n')}`,
        );
        const rec = await record(runner.url, id);
        assert.equal(rec.state, 'interrupted');
        assert.match(rec.error!.detail, /stopped while this job was running/);
        assert.equal(new RegExp(`group ${pgid}, were killed`).test(rec.error!.detail), outlives, rec.error!.detail);
        const replay = await readSse(await fetch(`${runner.url}/jobs/${id}/events`));
        const ids = replay.map((e) => Number(e.id));
        // Strictly increasing from 1: events a client may have seen but the crash lost from disk leave a gap, and
        // the recovered error is numbered past them (never a reused id).
        assert.equal(ids[0], 1);
        assert.ok(
          ids.every((v, i) => i === 0 || v > (ids[i - 1] as number)),
          ids.join(','),
        );
        assert.equal(replay.filter((e) => e.event === 'error' || e.event === 'result').length, 1);
        assert.equal(terminal(replay).event, 'error');
      } finally {
        await runner.close();
      }
    } finally {
      if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
      // only if the assertions above failed: do not leave the test's own processes behind (host pids, by marker)
      for (const p of withMarker(mark)) {
        try {
          process.kill(p, 'SIGKILL');
        } catch {
          // gone meanwhile
        }
      }
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
}
