// The data-dir lock: a live runner holds it; a dead one (gone, or a zombie not yet reaped) does not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openStore } from '../../../src/runner/store';

function tempDataDir(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'kr-lock-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('a lock held by a live process refuses the data dir and names the pid', (t) => {
  const dir = tempDataDir(t);
  const holder = spawn('sleep', ['30'], { stdio: 'ignore' });
  t.after(() => holder.kill('SIGKILL'));
  writeFileSync(path.join(dir, 'runner.lock'), `${holder.pid}\n`);
  assert.throws(() => openStore(dir), new RegExp(`in use by another kernel-runner \\(pid ${holder.pid}\\)`));
});

test(
  'a lock left by a zombie (killed, not yet reaped) does not hold the data dir',
  { skip: process.platform !== 'linux' },
  async (t) => {
    const dir = tempDataDir(t);
    // sh backgrounds a `read` of fd 3 and becomes `sleep 30`, which never reaps it; once sh has become sleep, the
    // line the read waits for is written: it exits and stays a zombie (sh itself could have reaped an earlier exit)
    const parent = spawn('sh', ['-c', 'read x <&3 & echo $!; exec sleep 30'], {
      stdio: ['ignore', 'pipe', 'ignore', 'pipe'],
    });
    t.after(() => parent.kill('SIGKILL'));
    const zombie = await new Promise<number>((resolve) =>
      parent.stdout?.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))),
    );
    const until = async (what: string, done: () => boolean): Promise<void> => {
      for (let i = 0; i < 1000 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
      assert.ok(done(), what);
    };
    await until('sh became sleep', () => readFileSync(`/proc/${parent.pid}/comm`, 'utf8').trim() === 'sleep');
    (parent.stdio[3] as NodeJS.WritableStream).write('go\n');
    await until('the reader is a zombie', () => {
      const stat = readFileSync(`/proc/${zombie}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
    });
    writeFileSync(path.join(dir, 'runner.lock'), `${zombie}\n`);
    const store = openStore(dir);
    t.after(() => store.close());
    assert.equal(readFileSync(path.join(dir, 'runner.lock'), 'utf8'), `${process.pid}\n`);
  },
);
