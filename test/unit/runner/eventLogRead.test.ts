// readEventLog over a log of several reads (1 MiB each): frames that span two reads, a "\n\n" split between them,
// multi-byte characters across the boundary, a window (after, upTo] and a resume from a chunk's end offset.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { formatFrame, readEventLog, type LogChunk } from '../../../src/runner/eventLog';

const READ = 1 << 20;

/** Frames 1..n whose sizes walk every offset mod 7 around the read boundaries; ids and bytes as written. */
function logText(n: number): { text: string; frames: string[] } {
  const frames: string[] = [];
  for (let id = 1; id <= n; id++)
    frames.push(
      formatFrame(
        id,
        'output',
        JSON.stringify({ stream: 'stdout', text: `${id} é ${'x'.repeat((id * 7919) % 3001)}`, noise: false }),
      ),
    );
  return { text: frames.join(''), frames };
}

async function collect(file: string, after: number, upTo?: number, from?: number): Promise<LogChunk[]> {
  const out: LogChunk[] = [];
  for await (const chunk of readEventLog(file, after, upTo, from)) out.push(chunk);
  return out;
}

test('event log read: frames across 1 MiB reads come whole, in order, as written; a window; a resume from an end offset', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kr-logread-'));
  try {
    const file = path.join(dir, 'events.sse');
    const { text, frames } = logText(3000);
    const bytes = Buffer.from(text);
    assert.ok(bytes.length > 3 * READ, 'the log spans several reads');
    writeFileSync(file, bytes);

    const all = await collect(file, 0);
    assert.equal(Buffer.concat(all.map((c) => c.bytes)).toString(), text);
    assert.equal(all[all.length - 1]!.last, 3000);
    for (const c of all) {
      const upToHere = frames.slice(0, c.last).join('');
      assert.equal(c.end, Buffer.byteLength(upToHere), `chunk ending at ${c.last}: its end offset`);
    }

    const window = await collect(file, 1000, 2000);
    assert.equal(Buffer.concat(window.map((c) => c.bytes)).toString(), frames.slice(1000, 2000).join(''));
    assert.equal(window[window.length - 1]!.last, 2000);
    const resumed = await collect(file, 2000, Number.POSITIVE_INFINITY, window[window.length - 1]!.end);
    assert.equal(Buffer.concat(resumed.map((c) => c.bytes)).toString(), frames.slice(2000).join(''));

    // a "\n\n" split between two reads: the frame before the boundary ends with its first "\n"
    const head = frames.slice(0, 10).join('');
    const pad = READ + 1 - Buffer.byteLength(head);
    const filler = formatFrame(11, 'output', 'y'.repeat(pad - Buffer.byteLength(formatFrame(11, 'output', ''))));
    const split = head + filler + formatFrame(12, 'status', '{"a":1}');
    assert.equal(Buffer.byteLength(head + filler), READ + 1, 'the terminator straddles the read boundary');
    writeFileSync(file, split);
    const got = await collect(file, 0);
    assert.equal(Buffer.concat(got.map((c) => c.bytes)).toString(), split);
    assert.deepEqual(got.map((c) => c.last).slice(-1), [12]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
