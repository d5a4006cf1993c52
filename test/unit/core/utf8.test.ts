import { test } from 'node:test';
import assert from 'node:assert/strict';
import { completeUtf8Length, createUtf8StreamDecoder } from '../../../src/core/noise/utf8';
import { seededRandom } from '../../support/random';

const oneShot = (bytes: Uint8Array) => new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(bytes);

/** Random bytes: mostly valid UTF-8 of every length, with invalid and cut-short sequences mixed in. */
function randomBytes(rnd: () => number, size: number): Uint8Array {
  const out: number[] = [];
  const pieces = ['a', '\n', 'é', '€', '😀', '\uFEFF'].map((s) => [...Buffer.from(s)]);
  while (out.length < size) {
    const r = rnd();
    if (r < 0.7) out.push(...(pieces[Math.floor(rnd() * pieces.length)] as number[]));
    else if (r < 0.8)
      out.push(0x80 + Math.floor(rnd() * 0x40)); // lone continuation byte
    else if (r < 0.9)
      out.push(0xc0 + Math.floor(rnd() * 0x40)); // lead byte, maybe left unfinished
    else out.push(Math.floor(rnd() * 256));
  }
  return Uint8Array.from(out);
}

test('streaming decode gives the one-shot text for any split, invalid bytes included', () => {
  const rnd = seededRandom(42);
  for (let trial = 0; trial < 500; trial++) {
    const bytes = randomBytes(rnd, 1 + Math.floor(rnd() * 200));
    const decoder = createUtf8StreamDecoder();
    let text = '';
    for (let at = 0; at < bytes.length;) {
      const next = Math.min(bytes.length, at + 1 + Math.floor(rnd() * (rnd() < 0.3 ? 3 : 40)));
      text += decoder.write(bytes.subarray(at, next));
      at = next;
    }
    text += decoder.end();
    assert.equal(text, oneShot(bytes), `trial ${trial}: ${Buffer.from(bytes).toString('hex')}`);
  }
});

test('an unfinished character waits for the next chunk, and becomes U+FFFD at the end', () => {
  const euro = Buffer.from('€'); // e2 82 ac
  const decoder = createUtf8StreamDecoder();
  assert.equal(decoder.write(Uint8Array.from([0x61, euro[0] as number])), 'a');
  assert.equal(decoder.pending, true);
  assert.equal(decoder.write(euro.subarray(1, 2)), '');
  assert.equal(decoder.write(euro.subarray(2)), '€');
  assert.equal(decoder.pending, false);
  assert.equal(decoder.write(Uint8Array.from([0xf0, 0x9f])), '');
  assert.equal(decoder.end(), '\uFFFD');
  assert.equal(decoder.end(), '');
});

test('complete length: only an unfinished last sequence is held back', () => {
  const len = (...b: number[]) => completeUtf8Length(Uint8Array.from(b));
  assert.equal(len(), 0);
  assert.equal(len(0x61, 0x62), 2);
  assert.equal(len(0x61, 0xe2, 0x82), 1); // € cut after two of its three bytes
  assert.equal(len(0xe2, 0x82, 0xac), 3);
  assert.equal(len(0x61, 0xf0, 0x9f, 0x98), 1); // 😀 cut after three of four
  assert.equal(len(0xf0, 0x9f, 0x98, 0x80), 4);
  assert.equal(len(0x61, 0x80, 0x80, 0x80), 4); // continuation bytes without a lead: invalid, nothing to wait for
  assert.equal(len(0xc3), 0);
});
