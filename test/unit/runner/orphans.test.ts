// Ending the process group a killed runner left behind, without touching a process that got the same pid since.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { JOB_TAG_VAR, killTagged, taggedProcesses } from '../../../src/runner/isolation';
import { killOrphanGroup, processGroupRef, registerTag } from '../../../src/runner/orphans';

const linux = process.platform === 'linux';

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return false;
  }
}

async function firstLine(child: ChildProcess): Promise<string> {
  let text = '';
  for await (const chunk of child.stdout!) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  return text.trim();
}

test(
  'a live group with the stored start time is killed; another start time means the pid was reused',
  { skip: !linux },
  async () => {
    const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    const exited = once(child, 'exit');
    try {
      const ref = processGroupRef(child.pid!);
      assert.ok(ref);
      assert.equal(ref.pgid, child.pid);
      assert.ok(ref.start_ticks > 0);
      assert.equal(killOrphanGroup({ pgid: ref.pgid, start_ticks: ref.start_ticks + 1 }), 'reused');
      assert.equal(alive(child.pid!), true, 'a stranger with the same pid is left alone');
      assert.equal(killOrphanGroup(ref), 'killed');
      const [, signal] = await exited;
      assert.equal(signal, 'SIGKILL');
      assert.equal(killOrphanGroup(ref), 'gone');
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  },
);

test('with the leader gone, the members left in its group are killed', { skip: !linux }, async () => {
  // the shell leads the group, starts a member in the background and exits
  const leader = spawn('sh', ['-c', 'sleep 30 & echo $!; sleep 0.3'], {
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const ref = processGroupRef(leader.pid!);
  assert.ok(ref);
  const member = Number(await firstLine(leader));
  try {
    await once(leader, 'exit');
    assert.equal(alive(leader.pid!), false);
    assert.equal(alive(member), true);
    assert.equal(killOrphanGroup(ref), 'killed');
    for (let i = 0; i < 100 && alive(member); i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(alive(member), false);
  } finally {
    if (alive(member)) process.kill(member, 'SIGKILL');
  }
});

test('nothing recorded for a pid that does not exist; a missing group is gone', { skip: !linux }, () => {
  assert.equal(processGroupRef(2 ** 22 + 12345), null);
  assert.equal(killOrphanGroup({ pgid: 2 ** 22 + 12345, start_ticks: 1 }), 'gone');
  assert.equal(killOrphanGroup({ pgid: 1, start_ticks: 1 }), 'gone', 'never init');
});

test(
  'processes that left the group (setsid) are found by the job tag and killed; the tag is recorded with the group',
  { skip: !linux },
  async () => {
    const tag = randomBytes(16).toString('hex');
    // the leader starts a member in a session of its own (out of the group) and exits
    const leader = spawn('sh', ['-c', 'setsid sleep 30 & echo $!; sleep 0.3'], {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, [JOB_TAG_VAR]: tag },
    });
    registerTag(leader.pid!, tag);
    const ref = processGroupRef(leader.pid!);
    registerTag(leader.pid!, null);
    assert.ok(ref);
    assert.equal(ref.tag, tag);
    assert.equal(processGroupRef(leader.pid!)?.tag, undefined, 'the tag is forgotten once unregistered');
    const escaped = Number(await firstLine(leader));
    try {
      await once(leader, 'exit');
      for (let i = 0; i < 100 && !taggedProcesses(tag).some((p) => p.pid === escaped); i++)
        await new Promise((r) => setTimeout(r, 20));
      assert.ok(
        taggedProcesses(tag).some((p) => p.pid === escaped && p.pgrp !== ref.pgid),
        'found by its tag, outside the group',
      );
      assert.equal(
        killOrphanGroup({ pgid: ref.pgid, start_ticks: ref.start_ticks }),
        'gone',
        'without the tag the group alone is gone',
      );
      assert.equal(alive(escaped), true);
      assert.equal(killOrphanGroup(ref), 'killed');
      for (let i = 0; i < 100 && alive(escaped); i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(alive(escaped), false);
      assert.deepEqual(taggedProcesses(tag), []);
      assert.equal(killTagged(tag), 0, 'nothing else carries the tag');
    } finally {
      if (alive(escaped)) process.kill(escaped, 'SIGKILL');
    }
  },
);
