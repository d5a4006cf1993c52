// The scanner's WebAssembly fast path for rows that repeat the row before but for two fields (repeatedRows.ts,
// wasm/repeatedRows.c): it runs here, it takes the rows it is for (whole runs, past the most one call reports),
// they come out as the JavaScript scanner reads them, and the committed module is the build of its C source.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createCsvScanner, fieldNumber, fieldText, type CsvRow } from '../../../src/trace/csvScanner';
import { REPEATED_ROWS_MAX, repeatedRows } from '../../../src/trace/repeatedRows';
import { REPEATED_ROWS_WASM } from '../../../src/trace/wasm/repeatedRowsWasm';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** Each row's texts, numbers, flags, line and offset, and how many the fast path took. */
function rowsOf(text: string, repeat?: { head: number; tail: number; offsetsUnread?: boolean }, chunk = text.length) {
  const rows: unknown[] = [];
  const scanner = createCsvScanner({
    repeat,
    onRow: (row) => {
      const n = row.fieldCount;
      rows.push([
        Array.from({ length: n }, (_, i) => fieldText(row, i)),
        Array.from({ length: n }, (_, i) => fieldNumber(row, i)),
        Array.from(row.quoted.subarray(0, n)),
        Array.from(row.wide.subarray(0, n)),
        row.line,
        row.offset,
      ]);
    },
  });
  const fast = repeatedRows();
  const before = fast?.rowsTaken ?? 0;
  const buf = Buffer.from(text);
  for (let at = 0; at < buf.length; at += chunk) scanner.feed(buf.subarray(at, at + chunk));
  scanner.end();
  return { rows, taken: (fast?.rowsTaken ?? 0) - before };
}

/**
 * A long-layout counter file: `dispatches` dispatches of `counters` rows each; `rocprofv3` writes names in quotes
 * and values as %f (`16384.000000`), some in scientific notation.
 */
function counterRows(dispatches: number, counters: number, rocprofv3 = false): string {
  const lines = ['Dispatch_Id,Kernel_Name,Grid_Size,Counter_Name,Counter_Value,Start_Timestamp,End_Timestamp'];
  for (let d = 1; d <= dispatches; d++)
    for (let c = 0; c < counters; c++) {
      const v = (d * 7919 + c * 104729) % 1000003;
      const name = rocprofv3 ? `"COUNTER_${c}"` : `COUNTER_${c}`;
      const value = !rocprofv3 ? `${v}` : c % 5 === 4 ? (v / 7e6).toExponential(8) : `${v}.000000`;
      lines.push(
        `${d},"gemm<1, 2>(float const*, int)",1048576,${name},${value},${12000000000000000000n + BigInt(d) * 1000n},${12000000000000000500n + BigInt(d) * 1000n}`,
      );
    }
  return `${lines.join('\n')}\n`;
}

test('the fast path runs here and takes every row of a dispatch after its first, as the JavaScript scanner reads them', () => {
  assert.ok(repeatedRows(), 'WebAssembly instance');
  const text = counterRows(50, 40);
  const plain = rowsOf(text);
  const fast = rowsOf(text, { head: 3, tail: 5 });
  assert.deepEqual(fast.rows, plain.rows);
  assert.equal(fast.taken, 50 * 39);
  assert.equal(plain.taken, 0);
  // fed in pieces of 1,000 bytes: rows cut by a piece are read in JavaScript, the same way
  const pieces = rowsOf(text, { head: 3, tail: 5 }, 1000);
  assert.deepEqual(pieces.rows, plain.rows);
  assert.ok(pieces.taken > 50 * 30, `taken in pieces: ${pieces.taken}`);
});

test("with offsetsUnread, a taken row's repeated fields are the same texts and values (their offsets may be an earlier row's)", () => {
  const text = counterRows(30, 40);
  const textsOf = (rows: unknown[]): unknown[] => rows.map((r) => (r as unknown[]).slice(0, 5));
  const plain = rowsOf(text);
  const fast = rowsOf(text, { head: 3, tail: 5, offsetsUnread: true }, 777);
  assert.deepEqual(textsOf(fast.rows), textsOf(plain.rows));
  assert.ok(fast.taken > 30 * 30, `taken: ${fast.taken}`);
});

test('rows as rocprofv3 writes them (quoted names, %f and scientific values) are taken, with the numbers Number() reads', () => {
  const text = counterRows(40, 40, true);
  const plain = rowsOf(text);
  const fast = rowsOf(text, { head: 3, tail: 5 });
  assert.deepEqual(fast.rows, plain.rows);
  assert.equal(fast.taken, 40 * 39);
  const numbers = (plain.rows.slice(1) as unknown[][]).map((r) => (r[1] as number[])[4]);
  assert.ok(numbers.some((n) => !Number.isInteger(n)) && numbers.every((n) => Number.isFinite(n)));
});

test('a run longer than one call reports is taken whole, over several calls', () => {
  const text = counterRows(2, REPEATED_ROWS_MAX * 2 + 5);
  const fast = rowsOf(text, { head: 3, tail: 5 });
  assert.deepEqual(fast.rows, rowsOf(text).rows);
  assert.equal(fast.taken, 2 * (REPEATED_ROWS_MAX * 2 + 4));
});

test('a row the fast path cannot read exactly (sign, decimals, 16 digits, a quote, another time) is left to JavaScript', () => {
  const base = counterRows(1, 3).trimEnd().split('\n');
  const row = (name: string, value: string, end = '12000000000000001500'): string =>
    `1,"gemm<1, 2>(float const*, int)",1048576,${name},${value},12000000000000001000,${end}`;
  const odd = [row('N', '-5'), row('N', '1.5'), row('N', '1234567890123456'), row('N"', '1'), row('N', '1', '9')];
  for (const r of odd) {
    const text = `${[...base, r, row('AFTER', '3')].join('\n')}\n`;
    const fast = rowsOf(text, { head: 3, tail: 5 });
    assert.deepEqual(fast.rows, rowsOf(text).rows, r);
    // the odd row is not taken; the rows of the dispatch before it are
    assert.ok(fast.taken >= 2, `${r}: ${fast.taken}`);
  }
});

test('the committed WebAssembly is the build of wasm/repeatedRows.c (clang-19, wasm-ld-19)', (t) => {
  let clang = true;
  try {
    execFileSync('clang-19', ['--version'], { stdio: 'ignore' });
    execFileSync('wasm-ld-19', ['--version'], { stdio: 'ignore' });
  } catch {
    clang = false;
  }
  // CI installs LLVM 19 (.ci/run): there the check always runs
  if (!clang && process.env.CI !== 'true') return t.skip('no clang-19 / wasm-ld-19 here');
  const out = execFileSync(process.execPath, ['scripts/build-wasm.mjs', '--check'], { cwd: root, encoding: 'utf8' });
  assert.equal(out, '');
  assert.ok(REPEATED_ROWS_WASM.length > 1000);
});

test("scanners that take turns, or one that runs inside another's reader, each get their own rows", () => {
  const a = counterRows(20, 40, true);
  const b = counterRows(25, 40).replace(/COUNTER_/g, 'OTHER_');
  const expectedA = rowsOf(a).rows;
  const expectedB = rowsOf(b).rows;
  const texts = (into: unknown[]) => (row: CsvRow) =>
    into.push(Array.from({ length: row.fieldCount }, (_, i) => `${fieldText(row, i)}=${fieldNumber(row, i)}`));
  const plainTexts = (text: string): unknown[] => {
    const out: unknown[] = [];
    const s = createCsvScanner({ onRow: texts(out) });
    s.feed(Buffer.from(text));
    s.end();
    return out;
  };
  // taking turns, a piece each: each load of one replaces the other's chunk in the fast path's memory
  const gotA: unknown[] = [];
  const gotB: unknown[] = [];
  const sa = createCsvScanner({ repeat: { head: 3, tail: 5 }, onRow: texts(gotA) });
  const sb = createCsvScanner({ repeat: { head: 3, tail: 5 }, onRow: texts(gotB) });
  const [ba, bb] = [Buffer.from(a), Buffer.from(b)];
  for (let at = 0; at < Math.max(ba.length, bb.length); at += 3000) {
    if (at < ba.length) sa.feed(ba.subarray(at, at + 3000));
    if (at < bb.length) sb.feed(bb.subarray(at, at + 3000));
  }
  sa.end();
  sb.end();
  assert.deepEqual(gotA, plainTexts(a));
  assert.deepEqual(gotB, plainTexts(b));
  // a reader that scans another file for each of its rows
  const outer: unknown[] = [];
  let inner: unknown[] = [];
  let nested = 0;
  const so = createCsvScanner({
    repeat: { head: 3, tail: 5 },
    onRow: (row) => {
      texts(outer)(row);
      if (nested++ % 97 !== 0) return;
      inner = [];
      const si = createCsvScanner({ repeat: { head: 3, tail: 5 }, onRow: texts(inner) });
      si.feed(bb);
      si.end();
    },
  });
  so.feed(ba);
  so.end();
  assert.deepEqual(outer, plainTexts(a));
  assert.deepEqual(inner, plainTexts(b));
  assert.equal(expectedA.length, outer.length);
  assert.equal(expectedB.length, inner.length);
});

test('a reader that changes what repeats in the middle of a run gets the rows after it read under the new setting', () => {
  const text = counterRows(10, 40, true);
  const got: string[][] = [];
  let repeatedAfter = 0;
  const scanner = createCsvScanner({
    repeat: { head: 3, tail: 5, offsetsUnread: true },
    onRow: (row) => {
      got.push(Array.from({ length: row.fieldCount }, (_, i) => `${fieldText(row, i)}=${fieldNumber(row, i)}`));
      if (got.length === 57) scanner.setRepeat(undefined);
      else if (got.length > 57 && (row.repeated || row.tailRepeated)) repeatedAfter++;
    },
  });
  scanner.feed(Buffer.from(text));
  scanner.end();
  const plain = rowsOf(text).rows.map((r) =>
    ((r as unknown[])[0] as string[]).map((t, i) => `${t}=${((r as unknown[])[1] as number[])[i]}`),
  );
  assert.deepEqual(got, plain);
  assert.equal(repeatedAfter, 0);
});
