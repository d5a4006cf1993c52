// A job fills the disk from inside its work dir (the issue's attack: 2 GiB under a 600 MiB --max-data, which
// --max-job-output does not count): with a disk budget for the work dir (maxJobDiskBytes, serve --max-job-disk) it
// is stopped long before, its run says why, and nothing of what it wrote is left. In every isolation mode here.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { resultEventSchema, type JobRecord } from '../../../src/core/protocol/api';
import { detectIsolation, type IsolationKind } from '../../../src/runner/isolation';
import { post, readSse, startTestRunner, terminal, waitFor, type TestRunner } from './helpers';

const BUDGET = 64 * 1024 * 1024;
const GOAL = 2 * 1024 ** 3;

/**
 * Writes `GOAL` bytes in files of `fileMiB` MiB each (one file when 0), saying how far it got; a write refused
 * (EFBIG: the largest file allowed) is said and the writing goes on in a new file.
 */
const filler = (fileMiB: number) => `
import os
block = b"x" * (1024 * 1024)
written = 0
n = 0
f = None
def next_file():
    global f, n
    if f:
        f.close()
    f = open("fill-%d" % n, "wb", buffering=0)
    n += 1
next_file()
while written < ${GOAL}:
    if ${fileMiB} and written and written % (${fileMiB} * 1024 * 1024) == 0:
        next_file()
    try:
        f.write(block)
    except OSError as e:
        print("refused", e.errno == 27 and "EFBIG" or e.strerror, "at", written, flush=True)
        next_file()
        continue
    written += len(block)
    if written % (16 * 1024 * 1024) == 0:
        print("wrote", written, flush=True)
print("done", written, flush=True)
`;

const modes: IsolationKind[] = ['pid-namespace', 'process-group'];

for (const mode of modes) {
  const env: NodeJS.ProcessEnv = { ...process.env, KERNEL_RUNNER_ISOLATION: mode };
  const available = process.platform === 'linux' && detectIsolation(env).kind === mode;

  describe(
    `disk budget of a job's work dir: ${mode}`,
    { skip: available ? false : `${mode} is not available here` },
    () => {
      let runner: TestRunner;
      before(async () => {
        runner = await startTestRunner({ env, maxJobDiskBytes: BUDGET, scriptTimeoutSec: 300, hardTimeoutSec: 600 });
      });
      after(() => runner.dispose());

      const runFiller = async (fileName: string, fileMiB: number) => {
        const accepted = (await (
          await post(`${runner.url}/submission/script/CPU/test`, { fileName, content: filler(fileMiB) })
        ).json()) as { details: { id: number } };
        const id = accepted.details.id;
        const events = await readSse(await fetch(`${runner.url}/jobs/${id}/events`));
        const rec = await waitFor(
          `job ${id} to end`,
          async () => {
            const r = (await (await fetch(`${runner.url}/jobs/${id}`)).json()) as JobRecord;
            return r.state === 'running' || r.state === 'queued' ? undefined : r;
          },
          120_000,
        );
        const run = resultEventSchema.parse(terminal(events).data).results[0]!.runs.test!.run!;
        const wrote = [...run.stdout.matchAll(/^wrote (\d+)$/gm)].map((m) => Number(m[1]));
        return { id, rec, run, last: wrote.length ? Math.max(...wrote) : 0 };
      };

      test('a job writing 2 GiB in 8 MiB files is stopped past its 64 MiB budget, says so, and leaves nothing', async (t) => {
        const { id, rec, run, last } = await runFiller('fill.py', 8);
        t.diagnostic(`stopped after ${last} bytes written (${/took ([^,]+),/.exec(run.stderr)?.[1] ?? '?'} counted)`);
        assert.equal(rec.state, 'failed', 'the job failed (it was not cancelled by anyone, nor did it succeed)');
        assert.doesNotMatch(run.stdout, /^done/m, 'it did not write its 2 GiB');
        assert.ok(last < GOAL, `it got to ${last} bytes`);
        assert.match(
          run.stderr,
          /\[kernel-runner\] the job's work dir took .*, past its disk budget of 64\.0 MiB \(serve --max-job-disk\): the job was stopped \(SIGKILL\)/,
        );
        assert.equal(run.passed, false);
        await waitFor('its work dir to be removed', () =>
          existsSync(path.join(runner.dataDir, 'jobs', String(id), 'work')) ? undefined : true,
        );
      });

      test('one file growing without end: stopped too (in a namespace the file cannot pass the budget at all)', async (t) => {
        const { id, rec, run, last } = await runFiller('one.py', 0);
        t.diagnostic(`stopped after ${last} bytes written`);
        assert.equal(rec.state, 'failed');
        assert.doesNotMatch(run.stdout, /^done/m);
        assert.ok(last < GOAL, `it got to ${last} bytes`);
        if (mode === 'pid-namespace') {
          // RLIMIT_FSIZE: the write fails at the budget (Python ignores SIGXFSZ, so it sees EFBIG)
          assert.match(run.stdout, new RegExp(`^refused EFBIG at ${BUDGET}$`, 'm'), run.stdout);
        }
        assert.match(run.stderr, /past its disk budget of 64\.0 MiB/);
        await waitFor('its work dir to be removed', () =>
          readdirSync(path.join(runner.dataDir, 'jobs', String(id))).includes('work') ? undefined : true,
        );
      });
    },
  );
}
