// A file on disk read ahead of its scan (fileRows.ts readAheadRows): every row whole whatever the reads cut, a row
// longer than the room kept for a cut row, and a scan that ends early leaves no read behind.
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { createCsvScanner, fieldText } from '../../../src/trace/csvScanner';
import { readAheadRows } from '../../../src/trace/fileRows';

const dir = mkdtempSync(path.join(tmpdir(), 'kr-read-ahead-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Rows of the file as the scanner saw them, each as its fields joined by `|`. */
async function rowsOf(file: string, stopAfter = Infinity): Promise<string[]> {
  const rows: string[] = [];
  const scanner = createCsvScanner({
    onRow: (row) => {
      if (rows.length === stopAfter) throw new Error('enough');
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

test('a row handler that throws ends the read with its error, and no read is left on the closed file', async () => {
  const file = path.join(dir, 'stop.csv');
  writeFileSync(file, Array.from({ length: 200_000 }, (_, i) => `${i},name_${i}`).join('\n'));
  const unhandled: unknown[] = [];
  const onUnhandled = (err: unknown): void => void unhandled.push(err);
  process.on('unhandledRejection', onUnhandled);
  try {
    await assert.rejects(rowsOf(file, 10), /enough/);
    // a read left running on the closed descriptor would fail now (EBADF) and reject with nobody waiting
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
  assert.deepEqual(unhandled, []);
});

test('an empty file and a file of one short row', async () => {
  const empty = path.join(dir, 'empty.csv');
  writeFileSync(empty, '');
  assert.deepEqual(await rowsOf(empty), []);
  const one = path.join(dir, 'one.csv');
  writeFileSync(one, 'a,b\n');
  assert.deepEqual(await rowsOf(one), ['a|b']);
});
