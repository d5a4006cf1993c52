// A job's memory and processes (serve --max-job-memory, --max-job-processes; runner/jobLimits.ts), in every
// isolation mode this machine has: a job that allocates past its memory ends with the kernel's refusal and the
// runner's note naming the limit; a fork bomb is stopped at the process limit where the kernel counts the job's
// processes (the job user of a root runner; the runner's user in a user namespace of its own; the process-group
// fallback of a runner that is not root), and where it cannot (uid 0) the runner says so at its start. Each time the
// runner stays up, runs the next job, and nothing of the bomb is left.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createInterface } from 'node:readline';
import { resultEventSchema, type RunResult } from '../../../src/core/protocol/api';
import { detectIsolation } from '../../../src/runner/isolation';
import {
  builtCli,
  pidAlive,
  repoRoot,
  startTestRunner,
  submitAndRead,
  tempDir,
  terminal,
  waitFor,
  type TestRunner,
} from './helpers';

const linux = process.platform === 'linux';
const root = process.getuid?.() === 0;
const systemPython = ['/usr/bin/python3', '/usr/local/bin/python3'].find((p) => existsSync(p));
const MEMORY = 256 * 1024 * 1024;
const PROCESSES = 64;

/**
 * A uid of this test's own for the job user (`--job-user UID`): the kernel counts RLIMIT_NPROC per uid across the
 * machine, so with the shared job user (nobody) the jobs of other test files running beside this one would take
 * from the bomb's 64. Derived from our pid (no two live test processes share it), past any account, and checked
 * free: no account and no process has it.
 */
function ownJobUid(): number {
  const taken = new Set<number>();
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) taken.add(Number(line.split(':')[2]));
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      taken.add(statSync(`/proc/${name}`).uid);
    } catch {
      // gone
    }
  }
  let uid = 1_600_000_000 + process.pid;
  while (taken.has(uid)) uid += 4_194_304; // past the largest pid: no other test process derives it
  return uid;
}

/** A PATH folder whose python3 is `target`, open to every user, or closed to all but this one (`closed`). */
function pythonBin(target: string, closed = false): string {
  const outer = tempDir('kr-limits-bin-');
  const bin = path.join(outer, 'bin');
  mkdirSync(bin);
  if (closed) {
    writeFileSync(path.join(bin, 'python3'), `#!/bin/sh\nexec ${target} "$@"\n`, { mode: 0o755 });
    chmodSync(outer, 0o700);
  } else {
    symlinkSync(target, path.join(bin, 'python3'));
    chmodSync(outer, 0o755);
  }
  return bin;
}

const namespaceHere = linux && detectIsolation(process.env).kind === 'pid-namespace';
const groupHere =
  linux && detectIsolation({ ...process.env, KERNEL_RUNNER_ISOLATION: 'process-group' }).kind === 'process-group';
const basePath = process.env.PATH ?? '';

interface Mode {
  name: string;
  env: NodeJS.ProcessEnv;
  /** `--job-user` of the runner, where the mode has one. */
  jobUser?: string;
  /** The kernel counts the job's processes here: the bomb must stop at the limit. Else the start line says so. */
  processesBounded: boolean;
  skip: string | false;
}

const modes: Mode[] = [
  {
    name: 'PID namespace, a root runner: the job user',
    env: systemPython ? { PATH: `${pythonBin(systemPython)}${path.delimiter}${basePath}` } : {},
    jobUser: linux && root ? String(ownJobUid()) : undefined,
    processesBounded: true,
    skip: !namespaceHere
      ? 'no PID namespace here'
      : !root
        ? 'the runner is not root here'
        : !systemPython
          ? 'no system python3 the job user could run'
          : false,
  },
  {
    name: root
      ? 'PID namespace, a root runner whose jobs run as uid 0 in a user namespace'
      : "PID namespace, the runner's user in a user namespace of its own",
    env: { PATH: `${pythonBin(systemPython ?? 'python3', root)}${path.delimiter}${basePath}` },
    processesBounded: !root,
    skip: !namespaceHere ? 'no PID namespace here' : false,
  },
  {
    name: 'process group (no namespace)',
    env: { KERNEL_RUNNER_ISOLATION: 'process-group' },
    processesBounded: !root,
    skip: !groupHere ? 'no process-group isolation here' : false,
  },
];

/** Live processes (zombies are gone) with an argument that holds `mark`. */
function processesMarked(mark: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (
        readFileSync(`/proc/${name}/cmdline`, 'utf8')
          .split('\0')
          .some((a) => a.includes(mark)) &&
        pidAlive(Number(name))
      )
        pids.push(Number(name));
    } catch {
      // gone
    }
  }
  return pids;
}

for (const mode of modes) {
  describe(`a job's memory and processes are bounded: ${mode.name}`, { skip: mode.skip }, () => {
    let runner: TestRunner;
    before(async () => {
      runner = await startTestRunner({
        env: { ...process.env, ...mode.env },
        ...(mode.jobUser !== undefined ? { jobUser: mode.jobUser } : {}),
        maxJobMemoryBytes: MEMORY,
        maxJobProcesses: PROCESSES,
        scriptTimeoutSec: 300,
        hardTimeoutSec: 600,
      });
    });
    after(() => runner.dispose());

    const run = async (fileName: string, content: string): Promise<RunResult> => {
      const events = await submitAndRead(`${runner.url}/script/CPU/test`, { fileName, content });
      return resultEventSchema.parse(terminal(events).data).results[0]!.runs.test!.run!;
    };
    const stillServes = async () => {
      const next = await run('after.py', 'print("still here")\n');
      assert.equal(next.exit_code, 0, next.stderr);
      assert.match(next.stdout, /still here/);
    };

    test('the start line says what is bounded and what is not', () => {
      const says = runner.info.isolation.description;
      assert.match(says, /memory 256 MiB per process/);
      if (mode.processesBounded) assert.match(says, /64 processes and threads/);
      else assert.match(says, /processes NOT bounded \([^)]*uid 0/);
    });

    test(
      "jobs run as this test's own job user",
      { skip: mode.jobUser === undefined ? 'no job user in this mode' : false },
      async () => {
        assert.match(
          runner.info.isolation.description,
          new RegExp(`run as uid ${mode.jobUser} \\(uid ${mode.jobUser}\\)`),
        );
        const who = await run('who.py', 'import os\nprint("uid", os.getuid())\n');
        assert.equal(who.exit_code, 0, who.stderr);
        assert.match(who.stdout, new RegExp(`^uid ${mode.jobUser}$`, 'm'));
      },
    );

    test('allocating past the memory limit ends the run with a clear message; below it the job runs', async () => {
      const small = await run('small.py', 'b = bytearray(32 * 1024 * 1024)\nprint("allocated", len(b))\n');
      assert.equal(small.exit_code, 0, small.stderr);
      assert.match(small.stdout, /allocated 33554432/);
      const big = await run('big.py', 'b = bytearray(1024 * 1024 * 1024)\nprint("allocated", len(b))\n');
      assert.notEqual(big.exit_code, 0);
      assert.doesNotMatch(big.stdout, /allocated/);
      assert.match(big.stderr, /MemoryError/);
      assert.match(
        big.stderr,
        /\[kernel-runner\] the program ran out of memory: a job's process may allocate 256 MiB \(serve --max-job-memory\)/,
      );
      await stillServes();
    });

    test(
      'a fork bomb stops at the process limit, the job ends, nothing of it is left, the runner goes on',
      { skip: mode.processesBounded ? false : "the kernel does not count uid 0's processes: said at the start" },
      async () => {
        const mark = `kr-bomb-${process.pid}-${Math.floor(Math.random() * 1e9)}`;
        // every child waits for a signal: only the runner's end of the job (namespace or group) can end them
        const code = `
import os, signal, sys
n = 0
try:
    while n < 3000:
        if os.fork() == 0:
            signal.pause()
            os._exit(0)
        n += 1
except OSError as e:
    print("refused after", n, "processes:", e, flush=True)
    sys.stderr.write(f"fork: {e}\\n")
    sys.exit(1)
print("never refused", n)
`;
        const bomb = await run(`${mark}.py`, code);
        const refused = /refused after (\d+) processes/.exec(bomb.stdout);
        assert.ok(refused, `${bomb.stdout}\n${bomb.stderr}`);
        assert.ok(Number(refused[1]) < PROCESSES, `fewer than the limit of ${PROCESSES}: ${refused[1]}`);
        assert.match(
          bomb.stderr,
          /\[kernel-runner\] the program could not start a process or thread: a job may run 64 \(serve --max-job-processes\)/,
        );
        await waitFor('no process of the bomb left', () => (processesMarked(mark).length === 0 ? true : undefined));
        await stillServes();
      },
    );
  });
}

describe('serve --max-job-memory, --max-job-processes', () => {
  const serve = (args: string[]) =>
    spawn(
      process.execPath,
      [
        builtCli(),
        'serve',
        '--port',
        '0',
        '--no-token',
        '--data-dir',
        tempDir('kr-limits-serve-'),
        '--profiler',
        'none',
        ...args,
      ],
      {
        cwd: repoRoot,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );

  test('a size too small to start an interpreter, or a count that is no count, is refused (exit 2) naming the flag', async () => {
    for (const [args, says] of [
      [['--max-job-memory', '1MiB'], /--max-job-memory takes a size of at least 64(\.0)? MiB/],
      [['--max-job-memory', 'lots'], /--max-job-memory takes a size/],
      [['--max-job-processes', '-1'], /--max-job-processes takes a whole number from 0/],
      [['--max-job-processes', '2.5'], /--max-job-processes takes a whole number from 0/],
    ] as const) {
      const child = serve([...args]);
      let err = '';
      child.stderr.setEncoding('utf8').on('data', (t: string) => (err += t));
      const [code] = (await once(child, 'exit')) as [number];
      assert.equal(code, 2, err);
      assert.match(err, says);
    }
  });

  test("the limits given are on serve's isolation line", async () => {
    const child = serve(['--max-job-memory', '300MiB', '--max-job-processes', '77']);
    try {
      const lines = createInterface({ input: child.stdout });
      let isolation = '';
      for await (const line of lines) {
        if (line.startsWith('  isolation:')) {
          isolation = line;
          break;
        }
      }
      assert.match(isolation, /memory 300 MiB per process/);
      assert.match(isolation, /77 processes|processes NOT bounded/);
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });
});
