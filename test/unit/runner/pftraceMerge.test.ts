// combined.pftrace of a multi-process profile: one parent track per GPU holding that GPU's queue tracks of every
// process, every event kept on its own track, colliding track uuids and packet sequence ids of the inputs renumbered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { mergePftraces } from '../../../src/runner/pftraceMerge';
import { decodePftrace, encodePftrace, type DecodedTrace } from '../../support/pftrace';
import { tempDirsRemovedAfter } from '../../support/tempDirs';

const tempDir = tempDirsRemovedAfter('kr-pftrace-');

const devices = new Map([
  ['Agent 2', 0],
  ['Agent 3', 1],
]);

/** (track name, kernel) of every begin event and every end event, sorted. */
function eventsByTrack(trace: DecodedTrace): string[] {
  const names = new Map(trace.tracks.map((t) => [t.uuid, t.name]));
  return trace.events.map((e) => `${names.get(e.track!) ?? '?'}|${e.name ?? 'end'}`).sort();
}

test('one parent track per GPU, each queue track under its GPU, every event kept, no uuid or sequence collision', async () => {
  const dir = tempDir('pftrace-merge');
  // the same uuids and sequence id in each file, as the Perfetto SDK of three processes could write them
  const inputs = [
    {
      pid: 100,
      rank: 0,
      rows: [
        { agent: 2, queue: 1, kernel: 'gemm', start: 10, end: 20 },
        { agent: 2, queue: 2, kernel: 'all2all', start: 15, end: 40 },
        { agent: 2, queue: 1, kernel: 'gemm', start: 50, end: 60 },
      ],
    },
    { pid: 200, rank: 1, rows: [{ agent: 3, queue: 1, kernel: 'all2all', start: 12, end: 45 }] },
    { pid: 300, rank: 2, rows: [{ agent: 3, queue: 4, kernel: 'copy', start: 30, end: 31 }] },
  ].map((p) => {
    const file = path.join(dir, `${p.pid}_results.pftrace`);
    writeFileSync(file, encodePftrace(p.rows, { pid: p.pid, firstUuid: 7n, sequence: 1 }));
    return { path: file, pid: p.pid, rank: p.rank, devices };
  });
  const target = path.join(dir, 'combined.pftrace');
  await mergePftraces(inputs, target);

  const decodedInputs = inputs.map((i) => decodePftrace(readFileSync(i.path)));
  assert.equal(new Set(decodedInputs.flatMap((d) => d.tracks.map((t) => t.uuid))).size, 2, 'the inputs do collide');
  const merged = decodePftrace(readFileSync(target));

  const uuids = merged.tracks.map((t) => t.uuid);
  assert.equal(new Set(uuids).size, uuids.length, 'every track uuid defined once');
  const gpus = merged.tracks.filter((t) => t.parent === undefined);
  assert.deepEqual(
    gpus.map((t) => t.name),
    ['GPU 0 (Agent 2) · rank 0', 'GPU 1 (Agent 3) · ranks 1, 2'],
  );
  const queues = merged.tracks.filter((t) => t.parent !== undefined);
  assert.equal(queues.length, 4);
  for (const q of queues) {
    const gpu = gpus.find((g) => g.uuid === q.parent);
    assert.ok(gpu, `${q.name}: its parent is a GPU track`);
    assert.equal(/Agent \d+/.exec(q.name)?.[0], /Agent \d+/.exec(gpu.name)?.[0], `${q.name} under ${gpu.name}`);
  }

  assert.equal(
    merged.events.length,
    decodedInputs.reduce((n, d) => n + d.events.length, 0),
  );
  assert.deepEqual(eventsByTrack(merged), decodedInputs.flatMap(eventsByTrack).sort(), 'each event on its own track');
  // each process's packets on a sequence of its own, and the GPU tracks' on another
  const sequenceOf = (pid: number) =>
    new Set(
      merged.events
        .filter((e) => merged.tracks.find((t) => t.uuid === e.track)?.name.endsWith(`(pid ${pid})`))
        .map((e) => e.sequence),
    );
  const perProcess = [100, 200, 300].map(sequenceOf);
  for (const s of perProcess) assert.equal(s.size, 1);
  const all = [...perProcess.map((s) => [...s][0]), ...new Set(gpus.map((g) => g.sequence))];
  assert.equal(new Set(all).size, 4, `sequences ${all.join(', ')}`);
});

test('a process whose agents have no device index: its queues are grouped per agent, named by pid', async () => {
  const dir = tempDir('pftrace-merge');
  const file = path.join(dir, '42_results.pftrace');
  writeFileSync(
    file,
    encodePftrace([{ agent: 9, queue: 0, kernel: 'k', start: 1, end: 2 }], { pid: 42, firstUuid: 1n, sequence: 3 }),
  );
  const target = path.join(dir, 'combined.pftrace');
  await mergePftraces([{ path: file, pid: 42, rank: null, devices: new Map() }], target);
  const merged = decodePftrace(readFileSync(target));
  assert.deepEqual(
    merged.tracks.map((t) => [t.name, t.parent === undefined]),
    [
      ['Agent 9 · pid 42', true],
      ['Agent 9 queue 0 (pid 42)', false],
    ],
  );
  assert.equal(merged.events.length, 2);
});

test('a trace cut short is refused with its name, not merged in part', async () => {
  const dir = tempDir('pftrace-merge');
  const file = path.join(dir, '5_results.pftrace');
  const whole = encodePftrace([{ agent: 2, queue: 0, kernel: 'k', start: 1, end: 2 }], {
    pid: 5,
    firstUuid: 1n,
    sequence: 1,
  });
  writeFileSync(file, whole.subarray(0, whole.length - 3));
  await assert.rejects(
    mergePftraces([{ path: file, pid: 5, rank: 0, devices }], path.join(dir, 'combined.pftrace')),
    /5_results\.pftrace: a Perfetto trace cut short/,
  );
});
