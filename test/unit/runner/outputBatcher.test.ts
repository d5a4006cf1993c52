// Live output batches: any sequence of classified lines on two streams comes back line for line, each with its own
// class, from the events the batcher makes (expandOutput), in order; batches split where they must.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { expandOutput, outputEventSchema, type OutputLine, type OutputStream } from '../../../src/core/protocol/api';
import { decodeEvent } from '../../../src/core/client/events';
import type { ClassifiedLine, LineKind } from '../../../src/core/noise/types';
import { createOutputBatcher } from '../../../src/runner/outputBatcher';
import { createOutputBudget } from '../../../src/runner/outputBudget';
import { parseSize } from '../../../src/cli/sizes';
import { seededRandom } from '../../support/random';

const KINDS: LineKind[] = ['program', 'perfetto', 'glog', 'rocprofv3', 'legacy', 'fatal'];

function line(text: string, kind: LineKind = 'program'): ClassifiedLine {
  return { text, raw: text, kind, noise: kind !== 'program' && kind !== 'fatal', eol: '\n' };
}

function expected(stream: OutputStream, l: ClassifiedLine): OutputLine {
  return l.kind === 'program'
    ? { stream, text: l.text, noise: l.noise }
    : { stream, text: l.text, noise: l.noise, kind: l.kind };
}

/** Decoded as our client decodes a frame's data. */
function decode(json: string) {
  const ev = decodeEvent({ id: '1', event: 'output', data: json });
  assert.equal(ev?.event, 'output');
  return ev.data as ReturnType<typeof outputEventSchema.parse>;
}

test('random lines on two streams with every class come back in order, each with its own class', () => {
  const rnd = seededRandom(7);
  const events: string[] = [];
  const batcher = createOutputBatcher({ emit: (json) => events.push(json), flushMs: 1_000_000, batchChars: 300 });
  const sent: OutputLine[] = [];
  for (let i = 0; i < 5000; i++) {
    const stream: OutputStream =
      rnd() < 0.2 ? 'stderr' : rnd() < 0.5 && sent.at(-1)?.stream === 'stderr' ? 'stderr' : 'stdout';
    const kind = rnd() < 0.6 ? 'program' : (KINDS[Math.floor(rnd() * KINDS.length)] as LineKind);
    const chars = ['a', ' ', '"', '\\', '\t', 'é', '✓', '\u0001', '}', ',', '[', 'id: 3'];
    const text = Array.from({ length: Math.floor(rnd() * 30) }, () => chars[Math.floor(rnd() * chars.length)]).join('');
    const l = line(text, kind);
    batcher.push(stream, l);
    sent.push(expected(stream, l));
  }
  batcher.flush();
  const got = events.flatMap((json) => expandOutput(decode(json)));
  assert.deepEqual(got, sent);
  assert.ok(events.length < sent.length / 3, `${events.length} events for ${sent.length} lines`);
  // and the general decoder (the schema) reads every batch the same way
  for (const json of events) assert.deepEqual(outputEventSchema.parse(JSON.parse(json)), decode(json));
});

test('a batch ends when the stream changes, at the size limit, and before the job emits anything else (flush)', () => {
  const events: string[] = [];
  const batcher = createOutputBatcher({ emit: (json) => events.push(json), flushMs: 1_000_000, batchChars: 20 });
  batcher.push('stdout', line('one'));
  batcher.push('stdout', line('two'));
  batcher.push('stderr', line('three', 'glog'));
  assert.deepEqual(
    events.map((j) => expandOutput(decode(j)).map((l) => l.text)),
    [['one', 'two']],
  );
  batcher.flush();
  assert.deepEqual(
    JSON.parse(events[1]!),
    { stream: 'stderr', text: 'three', noise: true, kind: 'glog' },
    'one line: the single-line form',
  );
  for (let i = 0; i < 10; i++) batcher.push('stdout', line(`line ${i}`));
  batcher.flush();
  const sizes = events.slice(2).map((j) => expandOutput(decode(j)).length);
  assert.deepEqual(
    sizes.reduce((a, b) => a + b, 0),
    10,
  );
  assert.ok(sizes.length >= 3, `split at 20 characters: ${sizes.join(',')}`);
  batcher.flush();
  assert.equal(events.length, 2 + sizes.length, 'nothing pending: a flush emits nothing');
});

test('a batch is emitted a few milliseconds after its first line when nothing else comes', async () => {
  const events: string[] = [];
  const batcher = createOutputBatcher({ emit: (json) => events.push(json), flushMs: 5 });
  batcher.push('stdout', line('alone'));
  batcher.push('stdout', line(''));
  assert.equal(events.length, 0);
  await sleep(40);
  assert.deepEqual(
    expandOutput(decode(events[0]!)).map((l) => l.text),
    ['alone', ''],
    'an empty line is a line',
  );
});

test('a malformed batch from a server is an error naming output, not lines made up', () => {
  for (const bad of [
    '{"stream":"stdout","text":"a\\nb","noise":false,"lines":0}',
    '{"stream":"stdout","text":"a","noise":false,"marks":[[0,"glog"]]}',
    '{"stream":"stdout","text":"a","noise":false,"marks":[["x","glog",true]]}',
    '{"stream":"stdin","text":"a","noise":false,"lines":2}',
  ]) {
    assert.throws(() => decodeEvent({ id: '1', event: 'output', data: bad }), /output/, bad);
  }
});

test('a mark past the end of a batch is ignored; the batch keeps the lines it has', () => {
  const lines = expandOutput({
    stream: 'stderr',
    text: 'a\nb',
    noise: false,
    lines: 2,
    marks: [
      [1, 'glog', true],
      [7, 'glog', true],
    ],
  });
  assert.deepEqual(lines, [
    { stream: 'stderr', text: 'a', noise: false },
    { stream: 'stderr', text: 'b', noise: true, kind: 'glog' },
  ]);
});

test('an output budget takes bytes up to its limit, then refuses everything', () => {
  const budget = createOutputBudget(100);
  assert.equal(budget.take(60), true);
  assert.equal(budget.take(40), true);
  assert.equal(budget.take(1), false);
  assert.equal(budget.exhausted, true);
  assert.equal(budget.take(0), false, 'refused for good');
  assert.equal(budget.used, 100);
});

test('sizes: binary units for K/M/G and KiB/MiB/GiB, decimal for KB/MB/GB; anything else is no size', () => {
  assert.equal(parseSize('256MiB'), 256 * 1024 ** 2);
  assert.equal(parseSize('256M'), 256 * 1024 ** 2);
  assert.equal(parseSize('20GB'), 20e9);
  assert.equal(parseSize('1.5 GiB'), 1.5 * 1024 ** 3);
  assert.equal(parseSize('4096'), 4096);
  for (const bad of ['', 'lots', '-1M', '1 PB', '1e9', 'MiB']) assert.equal(parseSize(bad), undefined, bad);
});
