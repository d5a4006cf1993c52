// `kernel-runner submit` with its embedded runner leaves no `kernel-runner-submit-*` folder behind: not after
// SIGTERM, SIGHUP (a closed terminal) or SIGQUIT, and what kill -9 left is swept by the next submit, while a live
// process's folder and another user's are left alone.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDirsRemovedAfter } from '../../support/tempDirs';
import { marker, withMarker } from '../runner/helpers';
import { ensureBuilt, runCli } from './helpers';

const tempDir = tempDirsRemovedAfter('kr-submit-tmp-');

before(() => ensureBuilt());

/** A script that says `ready` and then waits (bounded: it ends by itself should the test fail to stop it). */
function waitingScript(dir: string, mark: string): string {
  const file = path.join(dir, 'wait.py');
  writeFileSync(file, `import sys, time\n# ${mark}\nprint("ready", flush=True)\ntime.sleep(120)\n`);
  return file;
}

const submitDirs = (tmp: string) => readdirSync(tmp).filter((n) => n.startsWith('kernel-runner-submit-'));

/** A pid that was just used and is gone. */
function deadPid(): number {
  const r = spawnSync('true');
  assert.equal(r.status, 0);
  return r.pid as number;
}

for (const signal of ['SIGTERM', 'SIGHUP', 'SIGQUIT'] as const) {
  test(`${signal} while the job runs: the job is stopped and the folder removed, then the signal ends the command`, async () => {
    const tmp = tempDir(signal.toLowerCase());
    const work = tempDir(`${signal.toLowerCase()}-work`);
    const mark = marker();
    let seen: string[] = [];
    const r = await runCli(['submit', waitingScript(work, mark)], {
      cwd: work,
      env: { TMPDIR: tmp },
      onStdout: (text, child) => {
        if (/^ready$/m.test(text) && !child.killed) {
          seen = submitDirs(tmp);
          child.kill(signal);
        }
      },
    });
    assert.equal(seen.length, 1, `the running command had its folder: ${seen.join(', ')}`);
    assert.match(seen[0] as string, /^kernel-runner-submit-\d+-[A-Za-z0-9]+$/);
    assert.equal(r.signal, signal, `exit ${r.code}: ${r.stderr}`);
    assert.deepEqual(submitDirs(tmp), [], 'no folder left behind');
    assert.deepEqual(withMarker(mark), [], "the job's program is not left running");
  });
}

test("kill -9 leaves the folder; the next submit sweeps it and leaves a live process's folder alone", async () => {
  const tmp = tempDir('kill9');
  const work = tempDir('kill9-work');
  const mark = marker();
  try {
    const r = await runCli(['submit', waitingScript(work, mark)], {
      cwd: work,
      env: { TMPDIR: tmp },
      onStdout: (text, child) => {
        if (/^ready$/m.test(text) && !child.killed) child.kill('SIGKILL');
      },
    });
    assert.equal(r.signal, 'SIGKILL');
    const left = submitDirs(tmp);
    assert.equal(left.length, 1, 'kill -9 cannot be caught: its folder is still there');
    // a folder whose process is alive (this test's), with the same layout
    const live = `kernel-runner-submit-${process.pid}-Live01`;
    mkdirSync(path.join(tmp, live, 'jobs'), { recursive: true });
    const quick = path.join(work, 'quick.py');
    writeFileSync(quick, 'print("quick")\n');
    const next = await runCli(['submit', quick], { cwd: work, env: { TMPDIR: tmp } });
    assert.equal(next.code, 0, next.stderr);
    assert.match(next.stdout, /quick/);
    assert.deepEqual(submitDirs(tmp), [live], 'the stale folder went, the live one stayed, the new one was removed');
    assert.ok(existsSync(path.join(tmp, live, 'jobs')), 'nothing inside the live folder was touched');
  } finally {
    for (const pid of withMarker(mark)) process.kill(pid, 'SIGKILL');
  }
});

test(
  "another user's folder whose process is gone is never touched",
  { skip: process.getuid?.() !== 0 && "making another user's folder needs root" },
  async () => {
    const tmp = tempDir('other');
    const work = tempDir('other-work');
    const theirs = `kernel-runner-submit-${deadPid()}-Their1`;
    mkdirSync(path.join(tmp, theirs, 'jobs'), { recursive: true });
    writeFileSync(path.join(tmp, theirs, 'jobs', 'kept'), 'x');
    chownSync(path.join(tmp, theirs), 65534, 65534);
    const quick = path.join(work, 'quick.py');
    writeFileSync(quick, 'print("quick")\n');
    const r = await runCli(['submit', quick], { cwd: work, env: { TMPDIR: tmp } });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(submitDirs(tmp), [theirs]);
    assert.ok(existsSync(path.join(tmp, theirs, 'jobs', 'kept')));
  },
);
