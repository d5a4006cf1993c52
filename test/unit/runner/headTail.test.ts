// The head/tail cap trims its tail in batches; it must keep exactly what trimming at every push keeps (the simple
// model below), for any pieces, limits and moments of reading.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHeadTail, type HeadTail } from '../../../src/runner/headTail';
import { seededRandom } from '../../support/random';

/** The reference: measures every piece and trims the tail at every push. */
function modelHeadTail(limitBytes: number): HeadTail {
  const headLimit = Math.floor(limitBytes / 2);
  const tailLimit = limitBytes - headLimit;
  let head = '';
  let headBytes = 0;
  let headFull = false;
  let tail: Array<{ text: string; bytes: number }> = [];
  let total = 0;
  let omitted = 0;
  const tailBytes = () => tail.reduce((n, p) => n + p.bytes, 0);
  function pushTail(text: string): void {
    tail.push({ text, bytes: Buffer.byteLength(text) });
    while (tailBytes() > tailLimit && tail.length > 1) omitted += (tail.shift() as { bytes: number }).bytes;
    const last = tail[0] as { text: string; bytes: number };
    if (tail.length === 1 && last.bytes > tailLimit) {
      const buf = Buffer.from(last.text);
      const keep = buf.subarray(buf.length - tailLimit).toString();
      omitted += buf.length - Buffer.byteLength(keep);
      tail = [{ text: keep, bytes: Buffer.byteLength(keep) }];
    }
  }
  return {
    push(text) {
      if (!text) return;
      const bytes = Buffer.byteLength(text);
      total += bytes;
      if (!headFull) {
        if (headBytes + bytes <= headLimit) {
          head += text;
          headBytes += bytes;
          return;
        }
        headFull = true;
        if (headBytes === 0) {
          const buf = Buffer.from(text);
          head = buf.subarray(0, headLimit).toString();
          headBytes = Buffer.byteLength(head);
          const rest = buf.subarray(headBytes).toString();
          if (rest) pushTail(rest);
          return;
        }
      }
      pushTail(text);
    },
    text() {
      const tailText = tail.map((p) => p.text).join('');
      if (omitted === 0) return head + tailText;
      const sep = head.endsWith('\n') || head === '' ? '' : '\n';
      return `${head}${sep}[... ${omitted} bytes omitted ...]\n${tailText}`;
    },
    get totalBytes() {
      return total;
    },
    get omittedBytes() {
      return omitted;
    },
  };
}

test('head/tail: batched trimming keeps what trimming at every push keeps', () => {
  const rnd = seededRandom(3);
  const alphabet = ['a', 'b', '\n', 'é', '€', '😀', 'line\n'];
  for (let trial = 0; trial < 400; trial++) {
    const limit = [10, 17, 100, 1000, 16384][trial % 5] as number;
    const ours = createHeadTail(limit);
    const model = modelHeadTail(limit);
    const pushes = trial % 20 === 0 ? 30_000 : Math.floor(rnd() * 400);
    const differed: number[] = [];
    for (let i = 0; i < pushes; i++) {
      let piece = '';
      const len = Math.floor(rnd() * (rnd() < 0.03 ? 3000 : 30));
      for (let k = 0; k < len; k++) piece += alphabet[Math.floor(rnd() * alphabet.length)];
      ours.push(piece);
      model.push(piece);
      // compared along the way too, after a random few pushes
      if (rnd() < 0.005 && ours.text() !== model.text()) differed.push(i);
    }
    assert.deepEqual(differed, [], `trial ${trial}: the texts differed after these pushes`);
    assert.equal(ours.text(), model.text(), `trial ${trial}`);
    assert.equal(ours.omittedBytes, model.omittedBytes, `trial ${trial}`);
    assert.equal(ours.totalBytes, model.totalBytes, `trial ${trial}`);
  }
});
