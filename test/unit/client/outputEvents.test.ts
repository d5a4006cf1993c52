// The fast path for live output events must decode exactly what JSON.parse + the schema decode, and leave
// everything it does not recognise to them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeEvent, decodeOutputFast } from '../../../src/core/client/events';
import { outputEventSchema } from '../../../src/core/protocol/api';
import { seededRandom } from '../../support/random';

const general = (data: string) => outputEventSchema.parse(JSON.parse(data));

function randomText(rnd: () => number): string {
  const alphabet = ['a', 'Z', ' ', '0', '"', '\\', '\t', '\x1b', '\x00', 'é', '€', '😀', '/', '{', '}', ':', ','];
  let s = '';
  const n = Math.floor(rnd() * 30);
  for (let i = 0; i < n; i++) s += rnd() < 0.7 ? 'x' : alphabet[Math.floor(rnd() * alphabet.length)];
  return s;
}

test('output data as our runner writes it: fast path equals JSON.parse + schema, escapes fall back', () => {
  const rnd = seededRandom(7);
  let fast = 0;
  for (let i = 0; i < 3000; i++) {
    const text = randomText(rnd);
    const stream = rnd() < 0.5 ? 'stdout' : 'stderr';
    const kind = ['program', 'perfetto', 'glog', 'rocprofv3', 'legacy', 'fatal'][Math.floor(rnd() * 6)] as string;
    const noise = kind !== 'program' && kind !== 'fatal';
    // the runner's own encoding (src/runner/jobs.ts): kind left out for the program's lines
    const data = `{"stream":"${stream}","text":${JSON.stringify(text)},"noise":${noise}${kind === 'program' ? '' : `,"kind":"${kind}"`}}`;
    const viaFast = decodeOutputFast(data);
    fast += viaFast ? 1 : 0;
    assert.ok(viaFast || /\\/.test(JSON.stringify(text)), `only escaped text may miss the fast path: ${data}`);
    assert.deepEqual(viaFast ?? general(data), general(data), data);
    assert.deepEqual(decodeEvent({ id: String(i + 1), event: 'output', data })?.data, general(data), data);
  }
  assert.ok(fast > 1000, `the fast path took ${fast} of 3000`);
});

test('output data in other forms goes the general way, with the same result or error', () => {
  const others = [
    '{"text":"hi","stream":"stdout","noise":false}',
    '{ "stream": "stdout", "text": "hi", "noise": false }',
    '{"stream":"stdout","text":"hi","noise":false,"extra":1}',
    '{"stream":"stdout","text":"hi","noise":false,"kind":"Weird Kind"}',
    '{"stream":"stdout","text":"a\\"b","noise":true}',
  ];
  for (const data of others) {
    assert.equal(decodeOutputFast(data), undefined, data);
    assert.deepEqual(decodeEvent({ id: '1', event: 'output', data })?.data, general(data), data);
  }
  for (const bad of [
    '{"stream":"stdin","text":"hi","noise":false}',
    '{"stream":"stdout","text":"hi","noise":"no"}',
    '{"stream":"stdout","text":"hi\tthere","noise":false}',
  ]) {
    assert.equal(decodeOutputFast(bad), undefined, bad);
    assert.throws(() => decodeEvent({ id: '1', event: 'output', data: bad }), /output/);
  }
});
