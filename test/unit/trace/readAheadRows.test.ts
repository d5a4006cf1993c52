// A file on disk read ahead of its scan (fileRows.ts readAheadRows): every row whole whatever the reads cut, a row
// longer than the room kept for a cut row, and a scan that ends early leaves no read running behind it.
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { createCsvScanner, fieldText } from '../../../src/trace/csvScanner';
import { readAheadRows, type ChunkReader } from '../../../src/trace/fileRows';

const dir = mkdtempSync(path.join(tmpdir(), 'kr-read-ahead-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Rows of the file as the scanner saw them, each as its fields joined by `|`. */
async function rowsOf(file: string): Promise<string[]> {
  const rows: string[] = [];
  const scanner = createCsvScanner({
    onRow: (row) => {
      rows.push(Array.from({ length: row.fieldCount }, (_, i) => fieldText(row, i)).join('|'));
    },
  });
  const fd = openSync(file, 'r');
  try {
    await readAheadRows(fd, 0, scanner);
  } finally {
    closeSync(fd);
  }
  return rows;
}

test('rows cut by every read come out whole, a 300 KB quoted field among them, and a last row without a line end', async () => {
  const expected: string[] = [];
  let text = '';
  for (let i = 0; i < 60_000; i++) {
    // 3.7 MB: several reads, each ending inside some row
    const name = i === 20_000 ? `big ${'x'.repeat(300_000)}, "quoted"` : `kernel_${i % 97}`;
    const line = `${i},"${name.replace(/"/g, '""')}",${i * 7}`;
    expected.push(`${i}|${name}|${i * 7}`);
    text += i === 59_999 ? line : `${line}\n`;
  }
  const file = path.join(dir, 'rows.csv');
  writeFileSync(file, text);
  const rows = await rowsOf(file);
  assert.equal(rows.length, expected.length);
  assert.deepEqual(rows, expected);
});

test('a row handler that throws ends the read with its error only once the read it started has come back', async () => {
  const file = path.join(dir, 'stop.csv');
  writeFileSync(file, 'a,b\nc,d\n');
  // the file's reads, except that the second (started while the first chunk is scanned) comes back when told
  let second!: () => void;
  const secondMayReturn = new Promise<void>((resolve) => (second = resolve));
  let reads = 0;
  const readChunk: ChunkReader = async (fd, buffer, offset, length, position) => {
    if (++reads === 2) await secondMayReturn;
    return readSync(fd, buffer, offset, length, position);
  };
  let threw!: () => void;
  const thrown = new Promise<void>((resolve) => (threw = resolve));
  const scanner = createCsvScanner({
    onRow: () => {
      threw();
      throw new Error('enough');
    },
  });
  const fd = openSync(file, 'r');
  let settled = false;
  try {
    const reading = readAheadRows(fd, 0, scanner, readChunk).finally(() => {
      settled = true;
    });
    reading.catch(() => {});
    await thrown;
    await new Promise((resolve) => setImmediate(resolve));
    // the caller closes the file once this settles: not while a read it started still runs on it
    assert.equal(reads, 2);
    assert.equal(settled, false, 'settled while its next read was still running');
    second();
    await assert.rejects(reading, /enough/);
  } finally {
    closeSync(fd);
  }
});

test('an empty file and a file of one short row', async () => {
  const empty = path.join(dir, 'empty.csv');
  writeFileSync(empty, '');
  assert.deepEqual(await rowsOf(empty), []);
  const one = path.join(dir, 'one.csv');
  writeFileSync(one, 'a,b\n');
  assert.deepEqual(await rowsOf(one), ['a|b']);
});
