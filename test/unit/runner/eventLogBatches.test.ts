// The event log encodes frames in batches; whatever the sizes, the batches must be whole frames, in order, with
// the right ids, and together the same bytes as the file and as formatting each frame on its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { formatFrame, openEventLog, type FrameBatch } from '../../../src/runner/eventLog';
import { seededRandom } from '../../support/random';

test('event log batches: whole frames in id order, same bytes as the file, terminal batch last', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kr-log-'));
  try {
    const rnd = seededRandom(5);
    const file = path.join(dir, 'events.sse');
    const batches: FrameBatch[] = [];
    const log = openEventLog(file, 0, (b) => batches.push(b));
    let expected = '';
    const LAST = 20_000;
    for (let i = 1; i <= LAST; i++) {
      // mostly short lines, some non-ASCII, a few long ones (past the encoding batch, and one past a whole chunk)
      const size = i === 12_345 ? 5_000_000 : rnd() < 0.002 ? 100_000 : Math.floor(rnd() * 120);
      const json = JSON.stringify({ stream: 'stdout', text: (rnd() < 0.1 ? 'é😀' : 'x').repeat(size), noise: false });
      assert.equal(log.append('output', json), i);
      expected += formatFrame(i, 'output', json);
      if (rnd() < 0.002) await new Promise((r) => setImmediate(r)); // let a scheduled flush run now and then
    }
    log.append('result', '{}', true);
    expected += formatFrame(LAST + 1, 'result', '{}');
    await log.close();
    let next = 1;
    for (const [i, b] of batches.entries()) {
      assert.equal(b.first, next, `batch ${i} starts after the previous one`);
      assert.ok(b.last >= b.first);
      const text = b.bytes.toString('utf8');
      assert.ok(text.startsWith(`id: ${b.first}\n`) && text.endsWith('\n\n'), `batch ${i} holds whole frames`);
      assert.equal(b.terminal, i === batches.length - 1);
      next = b.last + 1;
    }
    assert.equal(next, LAST + 2);
    const all = Buffer.concat(batches.map((b) => b.bytes));
    assert.ok(all.equals(Buffer.from(expected, 'utf8')));
    assert.ok(readFileSync(file).equals(all));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
