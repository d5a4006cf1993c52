// Jobs cannot escape (issue 9, item 4): whatever a job's program starts (a `setsid` child holding stdout, a
// daemon with its stdio closed) ends with the job, on timeout, on cancel, when the main process exits, and when the
// runner itself was SIGKILLed (gone at the latest on the next start). Run under each isolation the machine allows:
// a PID namespace per job (the default where the kernel allows it), and the process group + job tag
// (KERNEL_RUNNER_ISOLATION=process-group, and the fallback where no namespace can be made).
//
// The job's processes are found from outside by a unique marker in their command line (inside a PID namespace a
// program's own pid means nothing out here), recorded while the job runs, and checked afterwards.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  chmodSync,
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { expandOutput, outputEventSchema, resultEventSchema, type JobRecord } from '../../../src/core/protocol/api';
import { detectIsolation, type IsolationKind } from '../../../src/runner/isolation';
import { createLocalExecutor, type ExecRequest } from '../../../src/runner/executors';
import { holdTimers } from '../../support/heldClock';
import {
  pidAlive,
  post,
  readSse,
  repoRoot,
  startTestRunner,
  tempDir,
  terminal,
  testBin,
  untilPrinted,
  waitFor,
  withMarker,
  type TestRunner,
} from './helpers';

const linux = process.platform === 'linux';
const GRACE_MS = 1000;
// The jobs' timeouts are the test's to fire, once the job is where the test wants it, however slow the machine.
const clock = holdTimers();
after(() => clock.release());

/** A marker no other process on the machine has: `sleep 300.<digits>` sleeps 300 s all the same. */
function marker(): string {
  return `300.${String(process.pid).padStart(7, '0')}${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`;
}

/** Starts `setsid sleep MARK` keeping the job's stdout open, then does `then`. */
const setsidKeepingStdout = (mark: string, then: string) => `
import subprocess, time
subprocess.Popen(["setsid", "sleep", "${mark}"])
print("started", flush=True)
${then}
`;

/**
 * A main process that exits (0) when the test sends it SIGUSR1, found from outside by `mainMark` in its command line
 * (it starts itself again with it, same pid); goes first in a program.
 */
const exitsOnSignal = (mainMark: string) => `
import os, signal, sys
if "${mainMark}" not in sys.argv:
    os.execv(sys.executable, [sys.executable, os.path.abspath(__file__), "${mainMark}"])
signal.signal(signal.SIGUSR1, lambda *_: sys.exit(0))
`;

/** Ends the main process of `exitsOnSignal(mainMark)`. */
function endMain(mainMark: string): void {
  const [main, ...others] = withMarker(mainMark);
  assert.ok(main !== undefined && others.length === 0, `one main process marked ${mainMark}`);
  process.kill(main, 'SIGUSR1');
}

/** A classic daemon: double fork, setsid, stdio closed, then sleeps; the job's main process sleeps `mainSleep` s. */
const daemonising = (mark: string, mainSleep: number) => `
import os, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        for fd in (0, 1, 2, 3):
            try:
                os.close(fd)
            except OSError:
                pass
        os.execvp("sleep", ["sleep", "${mark}"])
    os._exit(0)
print("started", flush=True)
time.sleep(${mainSleep})
`;

async function jobRecord(runner: { url: string }, id: number): Promise<JobRecord> {
  return (await (await fetch(`${runner.url}/jobs/${id}`)).json()) as JobRecord;
}

/** Submits in the background, waits for the program's "started" line and for the marked processes to show up. */
async function startJob(
  url: string,
  fileName: string,
  content: string,
  mark: string,
  count = 1,
  mode = 'test',
): Promise<{ id: number; pids: number[] }> {
  const accepted = (await (await post(`${url}/submission/script/CPU/${mode}`, { fileName, content })).json()) as {
    details: { id: number };
  };
  const id = accepted.details.id;
  await untilPrinted(url, id, 'started');
  const pids = await waitFor(
    `the job's marked process`,
    () => {
      const found = withMarker(mark);
      return found.length >= count ? found : undefined;
    },
    10_000,
  );
  return { id, pids };
}

async function ended(runner: { url: string }, id: number, withinMs: number): Promise<JobRecord> {
  return waitFor(
    `job ${id} to end`,
    async () => {
      const rec = await jobRecord(runner, id);
      return rec.state === 'running' || rec.state === 'queued' ? undefined : rec;
    },
    withinMs,
  );
}

function killLeftovers(mark: string): void {
  // only if an assertion failed: do not leave the test's own processes behind
  for (const pid of withMarker(mark)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

const modes: IsolationKind[] = ['process-group', 'pid-namespace'];

for (const mode of modes) {
  const env: NodeJS.ProcessEnv = { ...process.env, KERNEL_RUNNER_ISOLATION: mode };
  const available = linux && detectIsolation(env).kind === mode;

  describe(`isolation: ${mode}`, { skip: available ? false : `${mode} is not available here` }, () => {
    let runner: TestRunner;
    before(async () => {
      runner = await startTestRunner({ env, scriptTimeoutSec: clock.seconds, killGraceMs: GRACE_MS });
      assert.equal(runner.info.isolation.kind, mode);
      assert.ok(runner.info.isolation.description.length > 0);
    });
    after(() => runner.dispose());

    test('(a) a setsid child holding stdout: the timed-out job ends within the grace period and nothing of it is left', async () => {
      const mark = marker();
      try {
        const { id, pids } = await startJob(runner.url, 'a.py', setsidKeepingStdout(mark, 'time.sleep(600)'), mark);
        assert.equal(clock.fire(), 1, 'the job timed out now');
        // ended with the grace period, not with the child (which sleeps 300 s)
        const rec = await ended(runner, id, GRACE_MS + 60_000);
        assert.equal(rec.state, 'timed_out');
        const result = resultEventSchema.parse(
          terminal(await readSse(await fetch(`${runner.url}/jobs/${id}/events`))).data,
        );
        assert.equal(result.results[0]!.runs.test!.run!.exit_code, 114, 'the run timed out');
        for (const pid of pids) assert.equal(pidAlive(pid), false, `pid ${pid} (setsid sleep) is gone`);
        assert.deepEqual(withMarker(mark), []);
      } finally {
        killLeftovers(mark);
      }
    });

    test('(a) a setsid child holding stdout: the main process exits and the job ends at once, the child with it', async () => {
      const mark = marker();
      try {
        const mainMark = marker();
        const { id, pids } = await startJob(
          runner.url,
          'a2.py',
          exitsOnSignal(mainMark) + setsidKeepingStdout(mark, 'time.sleep(600)'),
          mark,
        );
        endMain(mainMark);
        // ended with the main process, not with the child (which sleeps 300 s)
        const rec = await ended(runner, id, GRACE_MS + 60_000);
        assert.equal(rec.state, 'succeeded');
        const result = resultEventSchema.parse(
          terminal(await readSse(await fetch(`${runner.url}/jobs/${id}/events`))).data,
        );
        const run = result.results[0]!.runs.test!.run!;
        assert.equal(run.exit_code, 0);
        assert.equal(run.stdout, 'started\n');
        for (const pid of pids) assert.equal(pidAlive(pid), false, `pid ${pid} (setsid sleep) is gone`);
      } finally {
        killLeftovers(mark);
      }
    });

    test('(b) a daemonised child (double fork, setsid, stdio closed) does not outlive its finished job', async () => {
      const mark = marker();
      try {
        const mainMark = marker();
        const { id, pids } = await startJob(runner.url, 'b.py', exitsOnSignal(mainMark) + daemonising(mark, 600), mark);
        endMain(mainMark);
        const rec = await ended(runner, id, GRACE_MS + 60_000);
        assert.equal(rec.state, 'succeeded');
        await waitFor(
          'the daemon to be gone',
          () => (pids.every((p) => !pidAlive(p)) ? true : undefined),
          GRACE_MS + 30_000,
        );
        assert.deepEqual(withMarker(mark), []);
      } finally {
        killLeftovers(mark);
      }
    });

    test('(c) DELETE /jobs/{id} of a job with such children answers within the grace period and leaves nothing', async () => {
      const mark = marker();
      const daemonMark = marker();
      try {
        // the main process ignores SIGINT, so only the SIGKILL after the grace period ends it
        const content = setsidKeepingStdout(
          mark,
          `import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n${daemonising(daemonMark, 600)}`,
        );
        const { id, pids } = await startJob(runner.url, 'c.py', content, mark);
        const daemons = await waitFor(
          'the daemon',
          () => {
            const found = withMarker(daemonMark);
            return found.length ? found : undefined;
          },
          10_000,
        );
        const asked = Date.now();
        const res = await fetch(`${runner.url}/jobs/${id}`, { method: 'DELETE' });
        assert.equal(res.status, 200);
        assert.equal(((await res.json()) as { state: string }).state, 'cancelled');
        // with the grace period, not with the main process (which sleeps 600 s)
        assert.ok(Date.now() - asked < GRACE_MS + 60_000, `DELETE took ${Date.now() - asked} ms`);
        for (const pid of [...pids, ...daemons]) assert.equal(pidAlive(pid), false, `pid ${pid} is gone`);
        assert.deepEqual([...withMarker(mark), ...withMarker(daemonMark)], []);
      } finally {
        killLeftovers(mark);
        killLeftovers(daemonMark);
      }
    });

    test('(d) a runner killed with SIGKILL mid-job: after the next start nothing of the job is alive, and it is interrupted', async () => {
      const dataDir = tempDir();
      const mark = marker();
      const daemonMark = marker();
      // a runner in its own process, so that it can be SIGKILLed
      const script = [
        `import { startRunner } from ${JSON.stringify(path.join(repoRoot, 'src/runner/index.ts'))};`,
        `const r = await startRunner({ port: 0, dataDir: ${JSON.stringify(dataDir)}, profiler: 'none', heartbeatMs: 200, killGraceMs: ${GRACE_MS} });`,
        'console.log(r.url);',
      ].join('\n');
      const server = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        cwd: repoRoot,
        env,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      try {
        const [url] = (await once(createInterface({ input: server.stdout! }), 'line')) as [string];
        assert.match(url, /^http:\/\//);
        const content = setsidKeepingStdout(mark, `${daemonising(daemonMark, 60)}`);
        const { id, pids } = await startJob(url, 'd.py', content, mark);
        const daemons = await waitFor(
          'the daemon',
          () => {
            const found = withMarker(daemonMark);
            return found.length ? found : undefined;
          },
          10_000,
        );
        server.kill('SIGKILL');
        await once(server, 'exit');
        const runner = await startTestRunner({ dataDir, env });
        try {
          await waitFor(
            'nothing of the old job left',
            () => ([...pids, ...daemons].every((p) => !pidAlive(p)) ? true : undefined),
            30_000,
          );
          assert.deepEqual([...withMarker(mark), ...withMarker(daemonMark)], []);
          const rec = await jobRecord(runner, id);
          assert.equal(rec.state, 'interrupted');
          assert.match(rec.error!.detail, /stopped while this job was running/);
        } finally {
          await runner.close();
        }
      } finally {
        if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
        killLeftovers(mark);
        killLeftovers(daemonMark);
        rmSync(dataDir, { recursive: true, force: true });
      }
    });

    test('(e) profile mode: the stand-in rocprofv3 still gets SIGINT first and finalises its outputs on timeout', async () => {
      const profEnv = { ...env, PATH: `${testBin}${path.delimiter}${env.PATH ?? ''}`, KR_FAKE_ROCPROF_NOISE: 'all' };
      // the profiler ends the grace period itself once its files are written: all the time a loaded machine needs
      const profRunner = await startTestRunner({
        env: profEnv,
        profiler: 'rocprofv3',
        scriptTimeoutSec: clock.seconds,
        killGraceMs: 120_000,
      });
      const mark = marker();
      try {
        const { id } = await startJob(
          profRunner.url,
          'slow.py',
          setsidKeepingStdout(mark, 'time.sleep(600)'),
          mark,
          1,
          'profile',
        );
        assert.equal(clock.fire(), 1, 'the job timed out now');
        const events = await readSse(await fetch(`${profRunner.url}/jobs/${id}/events`));
        const ev = resultEventSchema.parse(terminal(events).data).results[0]!.runs['profile.0']!;
        assert.equal(ev.run!.exit_code, 114);
        assert.match(
          ev.run!.stderr,
          new RegExp(`timed out after ${clock.seconds} s: sent SIGINT to the process group`),
        );
        const link = /what the profiler wrote is at (\S+)/.exec(ev.run!.stderr);
        assert.ok(link, ev.run!.stderr);
        const zip = Buffer.from(await (await fetch(link[1]!)).arrayBuffer());
        assert.ok(zip.includes(Buffer.from('_kernel_trace.csv')), 'the profiler wrote its files (SIGINT, not SIGKILL)');
        const output = events
          .filter((e) => e.event === 'output')
          .flatMap((e) => expandOutput(outputEventSchema.parse(e.data)));
        assert.ok(
          output.some((o) => o.noise && /caught signal 2/.test(o.text)),
          "the profiler's signal handler ran",
        );
        assert.deepEqual(withMarker(mark), [], 'the setsid child is gone');
      } finally {
        killLeftovers(mark);
        await profRunner.dispose();
      }
    });
  });
}

const namespaceHere = linux && detectIsolation(process.env).kind === 'pid-namespace';

/** The interpreter that `python3` on this PATH starts. */
const realPython = () =>
  execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();

/** A python3 launcher on PATH (a script, as pyenv's shims are) that notes each start in `log`. */
function countingLauncher(dir: string, log: string): string {
  const real = realPython();
  writeFileSync(
    path.join(dir, 'python3'),
    `#!/bin/sh\necho started >> ${JSON.stringify(log)}\nexec ${JSON.stringify(real)} "$@"\n`,
    { mode: 0o755 },
  );
  return real;
}

const starts = (log: string) => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0);

/** A folder with a counting python3 launcher first on PATH: where it logs its starts, the interpreter, the env. */
function withCountingLauncher(tag: string) {
  const dir = tempDir(tag);
  const log = path.join(dir, 'starts.log');
  const real = countingLauncher(dir, log);
  return { dir, log, real, env: { ...process.env, PATH: `${dir}:${process.env.PATH ?? ''}` } };
}

test(
  "the namespace's init runs on the interpreter itself, not through a python3 launcher on PATH (a pyenv-like shim)",
  { skip: namespaceHere ? false : 'no PID namespace here' },
  () => {
    // a launcher that finds the interpreter each time it is run, as pyenv's shims do
    const { dir, real, env } = withCountingLauncher('shim');
    try {
      const shim = path.join(dir, 'python3');
      const isolation = detectIsolation(env);
      assert.equal(isolation.kind, 'pid-namespace');
      const at = isolation.prefix.indexOf('-I');
      assert.equal(isolation.prefix[at - 1], real, 'the interpreter the launcher ran');
      assert.ok(!isolation.prefix.includes(shim), 'the launcher is not run for each job');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test(
  'with the interpreter itself on PATH, the namespace is checked without starting it and INIT runs on that path',
  { skip: namespaceHere ? false : 'no PID namespace here' },
  () => {
    const dir = tempDir('binary');
    try {
      const real = realPython();
      const link = path.join(dir, 'python3');
      symlinkSync(real, link);
      const isolation = detectIsolation({ ...process.env, PATH: `${dir}:${process.env.PATH ?? ''}` });
      assert.equal(isolation.kind, 'pid-namespace');
      assert.equal(isolation.prefix[isolation.prefix.indexOf('-I') - 1], link);
      // and it works: a program started through the prefix runs inside its own PID namespace
      const out = execFileSync(
        isolation.prefix[0] as string,
        [...isolation.prefix.slice(1), '3', real, '-c', 'import os; print(os.getpid())'],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe', 'pipe'] },
      );
      assert.equal(out.trim(), '2', 'the program is PID 2, after INIT');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test(
  'with a cache file, the namespace check of a launcher runs once: later runners take its finding while nothing changed',
  { skip: namespaceHere ? false : 'no PID namespace here' },
  () => {
    const { dir, log, real, env } = withCountingLauncher('isolation-cache');
    try {
      const cacheFile = path.join(dir, 'state', 'isolation.json');
      const first = detectIsolation(env, { cacheFile });
      assert.equal(starts(log), 1, 'the launcher ran once to say which interpreter it starts');
      assert.equal(first.prefix[first.prefix.indexOf('-I') - 1], real);
      assert.equal(statSync(cacheFile).mode & 0o777, 0o600, 'the finding is private to the user');
      const second = detectIsolation(env, { cacheFile });
      assert.equal(starts(log), 1, 'the second runner did not start the launcher');
      assert.deepEqual(second, first, 'same isolation, same command');

      // the launcher changed (a new pyenv version, a reinstall): checked again
      const later = new Date(Date.now() + 5000);
      utimesSync(path.join(dir, 'python3'), later, later);
      detectIsolation(env, { cacheFile });
      assert.equal(starts(log), 2, 'a changed launcher is checked again');
      detectIsolation(env, { cacheFile });
      assert.equal(starts(log), 2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test(
  'a cache file that is not trustworthy is ignored and replaced: foreign interpreter, writable by others, a link, garbage, too old',
  { skip: namespaceHere ? false : 'no PID namespace here' },
  () => {
    const { dir, log, real, env } = withCountingLauncher('isolation-cache-bad');
    try {
      const cacheFile = path.join(dir, 'isolation.json');
      detectIsolation(env, { cacheFile });
      const good = readFileSync(cacheFile, 'utf8');
      let expected = 1;
      const rejected = (what: string, write: () => void) => {
        write();
        const isolation = detectIsolation(env, { cacheFile });
        expected += 1;
        assert.equal(starts(log), expected, `${what}: checked again`);
        assert.equal(
          isolation.prefix[isolation.prefix.indexOf('-I') - 1],
          real,
          `${what}: INIT runs on the interpreter the check found`,
        );
        assert.ok(!isolation.prefix.includes('/bin/sh'), what);
      };
      rejected('another interpreter named in it', () =>
        writeFileSync(cacheFile, good.replace(JSON.stringify(real), JSON.stringify('/bin/sh'))),
      );
      rejected('writable by others', () => {
        writeFileSync(cacheFile, good);
        chmodSync(cacheFile, 0o666);
      });
      rejected('a symbolic link', () => {
        rmSync(cacheFile);
        writeFileSync(path.join(dir, 'elsewhere.json'), good, { mode: 0o600 });
        symlinkSync(path.join(dir, 'elsewhere.json'), cacheFile);
      });
      rejected('not JSON', () => {
        rmSync(cacheFile);
        writeFileSync(cacheFile, '{"version":1,', { mode: 0o600 });
      });
      rejected('a flag set that does not exist', () =>
        writeFileSync(cacheFile, good.replace(/"flagSet":\d+/, '"flagSet":7')),
      );
      rejected('older than a day', () =>
        writeFileSync(cacheFile, good.replace(/"checkedAt":\d+/, `"checkedAt":${Date.now() - 25 * 3600 * 1000}`)),
      );
      assert.ok(!lstatSync(cacheFile).isSymbolicLink(), 'the link was replaced by a file of ours');
      assert.equal(statSync(cacheFile).mode & 0o777, 0o600);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

/** Runs `code` with python3 through the local executor with the machine's isolation. */
function runPython(
  executor: ReturnType<typeof createLocalExecutor>,
  isolation: ReturnType<typeof detectIsolation>,
  code: string,
  extra: Partial<ExecRequest> = {},
) {
  return executor.run({
    command: 'python3',
    args: ['-c', code],
    cwd: extra.cwd ?? tmpdir(),
    env: { PATH: process.env.PATH, ...extra.env },
    timeoutMs: 20_000,
    graceMs: 1000,
    capBytes: 64 * 1024,
    isolation,
    ...extra,
  });
}

test(
  'a namespace made ahead of the job runs it as a fresh one would: its argv, environment, cwd, fd 3 only with POPCORN_FD, stdin /dev/null, signals',
  { skip: namespaceHere ? false : 'no PID namespace here' },
  async () => {
    const dir = tempDir('standby');
    const isolation = detectIsolation(process.env);
    const executor = createLocalExecutor({ isolation });
    try {
      const probe = `
import os, sys
print("argv", sys.argv[1:])
print("pid", os.getpid())
print("init", open("/proc/1/cmdline", "rb").read().split(b"\\0")[-2].decode())
print("cwd", os.getcwd())
print("env", os.environ.get("KR_TEST_VALUE"), "POPCORN_FD" in os.environ)
print("stdin", os.readlink("/proc/self/fd/0"))
try:
    os.fstat(3)
    print("fd3 open")
except OSError:
    print("fd3 closed")
`;
      const args = ['-c', probe, 'two words', 'ünïcode', '', 'a=b'];
      const first = await executor.run({
        command: 'python3',
        args,
        cwd: dir,
        env: { PATH: process.env.PATH, KR_TEST_VALUE: 'x=1 y' },
        timeoutMs: 20_000,
        graceMs: 1000,
        capBytes: 64 * 1024,
        isolation,
      });
      assert.equal(first.exitCode, 0, first.stderr);
      assert.match(first.stdout, /^argv \['two words', 'ünïcode', '', 'a=b'\]$/m);
      assert.match(first.stdout, /^pid 2$/m, 'the program is PID 2, after INIT');
      assert.match(first.stdout, /^init --standby$/m, 'it ran in the namespace made ahead of it');
      assert.match(first.stdout, new RegExp(`^cwd ${realpathSync(dir)}$`, 'm'));
      assert.match(first.stdout, /^env x=1 y False$/m);
      assert.match(first.stdout, /^stdin \/dev\/null$/m);
      assert.match(first.stdout, /^fd3 closed$/m, 'no POPCORN_FD: fd 3 is not open');

      // the next one a moment later: in a namespace made again; with POPCORN_FD, fd 3 is the result pipe
      await new Promise((r) => setTimeout(r, 300));
      const second = await runPython(
        executor,
        isolation,
        'import os; print(open("/proc/1/cmdline", "rb").read().split(b"\\0")[-2].decode()); os.write(3, b"check: pass\\n")',
        { popcornFd: true },
      );
      assert.equal(second.exitCode, 0, second.stderr);
      assert.match(second.stdout, /^--standby$/m);
      assert.equal(second.popcorn, 'check: pass\n');

      // one right after another: no namespace is waiting yet, a fresh one is made (and works the same)
      const third = await runPython(executor, isolation, 'import os; print(os.getpid())');
      const fourth = await runPython(executor, isolation, 'import os, signal; os.kill(os.getpid(), signal.SIGSEGV)');
      assert.equal(third.stdout.trim(), '2');
      assert.equal(fourth.signal, 'SIGSEGV', 'a signal that killed the program is reported as the signal');
      assert.equal(fourth.exitCode, null);
    } finally {
      await executor.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test(
  'the waiting namespace goes with the runner: none is left after close, and a NUL in an argument still fails as it always did',
  { skip: namespaceHere ? false : 'no PID namespace here' },
  async () => {
    const isolation = detectIsolation(process.env);
    // waiting namespaces of this process: an INIT with --standby among our descendants
    const waitingNamespaces = () =>
      readdirSync('/proc')
        .filter((p) => /^\d+$/.test(p))
        .filter((p) => {
          try {
            return (
              readFileSync(`/proc/${p}/cmdline`, 'latin1').split('\0').includes('--standby') &&
              ancestors(p).includes(process.pid)
            );
          } catch {
            return false; // gone meanwhile
          }
        });
    const executor = createLocalExecutor({ isolation });
    await waitFor(
      'a namespace waiting for the first job',
      () => (waitingNamespaces().length > 0 ? true : undefined),
      5000,
    );
    const nul = await runPython(executor, isolation, 'print(1)', { args: ['-c', 'print(1)', 'a\0b'] }).then(
      (r) => r.spawnError ?? 'ran',
      (err: Error) => err.message,
    );
    assert.notEqual(nul, 'ran', 'an argument with a NUL is refused');
    await executor.close();
    await waitFor('no namespace left after close', () => (waitingNamespaces().length === 0 ? true : undefined), 5000);
  },
);

/** The pids from `pid`'s parent up to init. */
function ancestors(pid: string): number[] {
  const chain: number[] = [];
  let at = pid;
  for (let i = 0; i < 64 && at !== '0' && at !== '1'; i++) {
    const ppid = /^PPid:\s*(\d+)/m.exec(readFileSync(`/proc/${at}/status`, 'utf8'))?.[1];
    if (!ppid) break;
    chain.push(Number(ppid));
    at = ppid;
  }
  return chain;
}
