import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { createCsvScanner, fieldNumber, fieldText, CsvFormatError, type CsvRow } from '../../../src/trace/csvScanner';
import { fixture, fixtures, parseCsvReference, seededRandom } from './helpers';

interface Scanned {
  rows: string[][];
  values: number[][];
  quoted: number[][];
  lines: number[];
}

function scanChunks(chunks: Uint8Array[], opts: { maxRowBytes?: number; maxFields?: number } = {}): Scanned {
  const out: Scanned = { rows: [], values: [], quoted: [], lines: [] };
  const scanner = createCsvScanner({
    ...opts,
    onRow: (row: CsvRow) => {
      out.rows.push(Array.from({ length: row.fieldCount }, (_, i) => fieldText(row, i)));
      out.values.push(Array.from(row.values.subarray(0, row.fieldCount)));
      out.quoted.push(Array.from(row.quoted.subarray(0, row.fieldCount)));
      out.lines.push(row.line);
    },
  });
  for (const c of chunks) scanner.feed(c);
  scanner.end();
  return out;
}

function randomChunks(buf: Buffer, next: () => number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let at = 0;
  while (at < buf.length) {
    // mostly tiny pieces (1-8 bytes) to hit every boundary kind, sometimes large ones
    const size = next() < 0.8 ? 1 + Math.floor(next() * 8) : 1 + Math.floor(next() * 4096);
    // plain Uint8Array views too, not only Buffers
    const piece = buf.subarray(at, at + size);
    chunks.push(next() < 0.5 ? new Uint8Array(piece) : piece);
    at += size;
  }
  return chunks;
}

const tricky = [
  '"Kind","Kernel_Name","Start_Timestamp","End_Timestamp"\r\n',
  '"KERNEL_DISPATCH","void f<1, 2>(float*, int)",100,250\r\n',
  '"KERNEL_DISPATCH","say ""hi"", then, go",-5,7\r\n',
  '"KERNEL_DISPATCH","multi\nline, name",1,2\n',
  '"KERNEL_DISPATCH","",3,4\n',
  '\n',
  'plain,unquoted name,12x,1e3\n',
  'a,,"",\n',
  '"last","no newline at end",9007199254740991,0',
].join('');

test('parses quoted commas, doubled quotes, newlines in quotes, CRLF, empty and unquoted fields', () => {
  const got = scanChunks([Buffer.from(tricky)]);
  assert.deepEqual(got.rows, parseCsvReference(tricky));
  assert.deepEqual(got.rows[2], ['KERNEL_DISPATCH', 'say "hi", then, go', '-5', '7']);
  assert.deepEqual(got.rows[3], ['KERNEL_DISPATCH', 'multi\nline, name', '1', '2']);
  assert.deepEqual(got.rows[6], ['a', '', '', '']);
  assert.equal(got.rows.length, 8, 'the blank line is skipped');
  // integers are parsed during the scan; anything else is NaN
  assert.deepEqual(got.values[1]?.slice(2), [100, 250]);
  assert.deepEqual(got.values[2]?.slice(2), [-5, 7]);
  assert.ok(Number.isNaN(got.values[5]?.[2] as number), '12x is not a number');
  assert.ok(Number.isNaN(got.values[5]?.[3] as number), '1e3 is not pre-parsed');
  assert.equal(got.values[7]?.[2], 9007199254740991);
  assert.deepEqual(got.quoted[6], [0, 0, 1, 0]);
  // line numbers count the newline inside the quoted name
  assert.deepEqual(got.lines, [1, 2, 3, 4, 6, 8, 9, 10]);
});

test('gives the same rows at every chunk boundary (random splits, 300 runs)', () => {
  const buf = Buffer.from(tricky);
  const expected = scanChunks([buf]);
  const next = seededRandom(1234);
  for (let run = 0; run < 300; run++) {
    const got = scanChunks(randomChunks(buf, next));
    assert.deepEqual(got.rows, expected.rows, `run ${run}`);
    assert.deepEqual(got.values, expected.values, `run ${run}`);
    assert.deepEqual(got.lines, expected.lines, `run ${run}`);
  }
  // and split at every single offset
  for (let cut = 0; cut <= buf.length; cut++) {
    const got = scanChunks([buf.subarray(0, cut), buf.subarray(cut)]);
    assert.deepEqual(got.rows, expected.rows, `cut at ${cut}`);
  }
});

test('every fixture CSV scans like the reference parser, whole and in random chunks', () => {
  const next = seededRandom(99);
  const csvs = readdirSync(fixtures).filter((f) => f.endsWith('.csv'));
  assert.ok(csvs.length >= 15);
  for (const name of csvs) {
    const buf = readFileSync(fixture(name));
    const expected = parseCsvReference(buf.toString('utf8'));
    assert.deepEqual(scanChunks([buf]).rows, expected, name);
    assert.deepEqual(scanChunks(randomChunks(buf, next)).rows, expected, `${name} (chunked)`);
  }
});

test('random CSV documents with nasty names match the reference parser', () => {
  const next = seededRandom(7);
  const alphabet = ['a', 'b', ',', '"', '\n', '\r\n', ' ', '<', '>', 'é', '7', '-'];
  for (let doc = 0; doc < 200; doc++) {
    const lines: string[] = [];
    for (let r = 0; r < 1 + Math.floor(next() * 6); r++) {
      const fields: string[] = [];
      for (let f = 0; f < 1 + Math.floor(next() * 5); f++) {
        if (next() < 0.4) {
          fields.push(String(Math.floor(next() * 1e6)));
        } else {
          let s = '';
          for (let k = 0; k < Math.floor(next() * 12); k++) s += alphabet[Math.floor(next() * alphabet.length)];
          fields.push(`"${s.replaceAll('"', '""')}"`);
        }
      }
      lines.push(fields.join(','));
    }
    const text = lines.join(next() < 0.5 ? '\n' : '\r\n') + (next() < 0.5 ? '\n' : '');
    const buf = Buffer.from(text);
    const expected = parseCsvReference(text);
    assert.deepEqual(scanChunks([buf]).rows, expected, JSON.stringify(text));
    assert.deepEqual(scanChunks(randomChunks(buf, next)).rows, expected, JSON.stringify(text));
  }
});

test('a UTF-8 byte order mark is dropped, even when split across chunks', () => {
  const buf = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('"Name","Calls"\n"x",1\n')]);
  for (let cut = 0; cut <= 4; cut++) {
    const got = scanChunks([buf.subarray(0, cut), buf.subarray(cut)]);
    assert.deepEqual(got.rows, [
      ['Name', 'Calls'],
      ['x', '1'],
    ]);
  }
});

test('fieldNumber reads scientific notation and decimals as stats files write them', () => {
  const got: number[] = [];
  const scanner = createCsvScanner({
    onRow: (row) => got.push(fieldNumber(row, 0), fieldNumber(row, 1), fieldNumber(row, 2)),
  });
  scanner.feed(Buffer.from('5.384e-04,0.00000000e+00,"12"\n'));
  scanner.end();
  assert.deepEqual(got, [5.384e-4, 0, 12]);
});

test('malformed input is an error with a line number, never a hang or a silent loss', () => {
  assert.throws(
    () => scanChunks([Buffer.from('a,b\n"unterminated,1\n')]),
    (err: unknown) => {
      assert.ok(err instanceof CsvFormatError);
      assert.equal(err.type, 'csv-format');
      assert.equal(err.line, 2);
      return true;
    },
  );
  assert.throws(() => scanChunks([Buffer.from('"ab"c,1\n')]), /after a closing quote \(line 1\)/);
  assert.throws(
    () => scanChunks([Buffer.from('"a very long unterminated field ...........')], { maxRowBytes: 16 }),
    /longer than 16 bytes/,
  );
  assert.throws(() => scanChunks([Buffer.from('1,2,3,4\n')], { maxFields: 3 }), /more than 3 fields/);
});

test('reset starts over: header, line numbers and BOM handling', () => {
  const rows: string[][] = [];
  const scanner = createCsvScanner({
    onRow: (row) => rows.push(Array.from({ length: row.fieldCount }, (_, i) => fieldText(row, i))),
  });
  scanner.feed(Buffer.from('a,b\n"half'));
  scanner.reset();
  scanner.feed(Buffer.from('c,d\n'));
  scanner.end();
  assert.deepEqual(rows, [
    ['a', 'b'],
    ['c', 'd'],
  ]);
});

/** Scans `buf` with a guess for field `field` made by `pick` (called with the row's values so far). */
function scanGuessing(
  buf: Buffer,
  field: number,
  pick: (values: Float64Array) => string | undefined,
  chunks?: Uint8Array[],
): Scanned & { guessed: boolean[] } {
  const out: Scanned & { guessed: boolean[] } = { rows: [], values: [], quoted: [], lines: [], guessed: [] };
  const scanner = createCsvScanner({
    guess: {
      field,
      bytes: (values) => {
        const g = pick(values);
        return g === undefined ? undefined : Buffer.from(g);
      },
    },
    onRow: (row: CsvRow) => {
      out.rows.push(Array.from({ length: row.fieldCount }, (_, i) => fieldText(row, i)));
      out.values.push(Array.from(row.values.subarray(0, row.fieldCount)));
      out.quoted.push(Array.from(row.quoted.subarray(0, row.fieldCount)));
      out.lines.push(row.line);
      out.guessed.push(row.guessed);
    },
  });
  for (const c of chunks ?? [buf]) scanner.feed(c);
  scanner.end();
  return out;
}

test('a field guess: right guesses are taken, wrong ones (prefix, longer, same length, quote after) change nothing', () => {
  const names = ['gemm<1, 2>(float*, int)', 'say ""hi""', 'multi\nline', 'short', 'shorter', '', 'x,,y', 'x,\r\ny'];
  const next = seededRandom(42);
  for (let doc = 0; doc < 300; doc++) {
    const lines = ['"Kernel_Id","Kernel_Name","Start"'];
    for (let r = 0; r < 1 + Math.floor(next() * 8); r++)
      lines.push(`${Math.floor(next() * names.length)},"${names[Math.floor(next() * names.length)]}",${r}`);
    const text = lines.join(next() < 0.5 ? '\n' : '\r\n') + (next() < 0.5 ? '\n' : '');
    const buf = Buffer.from(text);
    const expected = scanChunks([buf]);
    // the guesser knows the texts (those without `"` or a line feed), picks one at random or none
    const guessable = [
      'gemm<1, 2>(float*, int)',
      'gemm<1, 2>(float*',
      'gemm<1, 2>(float*, int)x',
      'gemm<1, 3>(float*, int)',
      'short',
      'shorter',
      'say ',
      '',
      'x',
      'x,',
    ];
    const pick = (): string | undefined =>
      next() < 0.15 ? undefined : guessable[Math.floor(next() * guessable.length)];
    const got = scanGuessing(buf, 1, pick);
    assert.deepEqual(got.rows, expected.rows, JSON.stringify(text));
    assert.deepEqual(got.values, expected.values);
    assert.deepEqual(got.quoted, expected.quoted);
    assert.deepEqual(got.lines, expected.lines, 'line numbers are unchanged');
    const chunked = scanGuessing(buf, 1, pick, randomChunks(buf, next));
    assert.deepEqual(chunked.rows, expected.rows, `${JSON.stringify(text)} (chunked)`);
    assert.deepEqual(chunked.lines, expected.lines);
    const heldGuesses = [...got.guessed.entries(), ...chunked.guessed.entries()]
      .filter(([, g]) => g)
      .map(([i]) => expected.rows[i]![1]!);
    assert.deepEqual(
      heldGuesses.filter((field) => /["\n]/.test(field)),
      [],
      'a guess holds only for a field without quotes or line feeds',
    );
  }
  // a guess equal to the field holds (the row says so) and one that is not, does not
  const header = '"Kernel_Id","Kernel_Name","Start"\n';
  const exact = scanGuessing(Buffer.from(`${header}1,"short",5\n2,"shorter",6\n3,"say ""x""",7\n`), 1, (v) =>
    v[0] === 1 ? 'short' : v[0] === 2 ? 'short' : 'say ',
  );
  assert.deepEqual(exact.guessed, [false, true, false, false]);
  assert.deepEqual(
    exact.rows.slice(1).map((r) => r[1]),
    ['short', 'shorter', 'say "x"'],
  );
});

test('scanRows over a buffer the caller refills: same rows, lines and offsets as feed, for any read size', () => {
  const buf = Buffer.from(tricky.repeat(20));
  const expected: Array<[string[], number, number]> = [];
  const whole = createCsvScanner({
    onRow: (row) =>
      expected.push([Array.from({ length: row.fieldCount }, (_, i) => fieldText(row, i)), row.line, row.offset]),
  });
  whole.feed(buf);
  whole.end();
  for (const readSize of [1, 2, 3, 7, 16, 100, 4096]) {
    const got: Array<[string[], number, number]> = [];
    const scanner = createCsvScanner({
      onRow: (row) =>
        got.push([Array.from({ length: row.fieldCount }, (_, i) => fieldText(row, i)), row.line, row.offset]),
    });
    let own = Buffer.alloc(readSize);
    let kept = 0;
    for (let pos = 0; ;) {
      if (kept === own.length) own = Buffer.concat([own, Buffer.alloc(own.length)]);
      const n = buf.copy(own, kept, pos, Math.min(buf.length, pos + own.length - kept));
      if (n === 0) {
        scanner.scanRows(own.subarray(0, kept), true);
        break;
      }
      pos += n;
      const used = scanner.scanRows(own.subarray(0, kept + n), false);
      own.copy(own, 0, used, kept + n);
      kept = kept + n - used;
    }
    assert.deepEqual(got, expected, `reads of ${readSize} bytes`);
  }
});

/** Every field of every row as the scanner gives it (texts, numbers, flags, line, offset). */
function snapshot(
  chunks: Uint8Array[],
  repeat?: { head: number; tail: number },
): { rows: unknown[]; repeated: number; tailRepeated: number; tailMismatches: string[] } {
  const rows: unknown[] = [];
  let repeated = 0;
  let tailRepeated = 0;
  const tailMismatches: string[] = [];
  let before: { fields: number[]; texts: string[] } | null = null;
  const scanner = createCsvScanner({
    repeat,
    onRow: (row) => {
      const n = row.fieldCount;
      const texts = Array.from({ length: n }, (_, i) => fieldText(row, i));
      const fields = Array.from({ length: n }, (_, i) => fieldNumber(row, i));
      if (row.tailRepeated) {
        // what a reader takes over from the row before: the tail's fields, as they were there
        tailRepeated++;
        const from = repeat?.tail ?? n;
        const same =
          before !== null &&
          before.texts.length === n &&
          JSON.stringify(texts.slice(from)) === JSON.stringify(before.texts.slice(from)) &&
          JSON.stringify(fields.slice(from)) === JSON.stringify(before.fields.slice(from));
        if (!same) tailMismatches.push(`line ${row.line}: ${JSON.stringify(texts)} after ${JSON.stringify(before)}`);
      }
      before = { fields, texts };
      rows.push([
        Array.from({ length: n }, (_, i) => fieldText(row, i)),
        Array.from({ length: n }, (_, i) => fieldNumber(row, i)),
        Array.from(row.quoted.subarray(0, n)),
        Array.from(row.escaped.subarray(0, n)),
        Array.from(row.values.subarray(0, n)),
        Array.from({ length: n }, (_, i) => (row.wide[i] ? [row.high[i], row.low[i]] : 0)),
        row.line,
        row.offset,
      ]);
      if (row.repeated) repeated++;
    },
  });
  for (const c of chunks) scanner.feed(c);
  scanner.end();
  return { rows, repeated, tailRepeated, tailMismatches };
}

test('repeated fields: every row after the first of a run with the same first fields is taken over, not every other one', () => {
  const lines = ['a,b,c,d,e'];
  for (const dispatch of [1, 2])
    for (const counter of ['SQ_WAVES', 'GRBM_GUI_ACTIVE', 'SQ_BUSY_CYCLES', 'TA_BUSY_avr'])
      lines.push(`${dispatch},"gemm<1, 2>(float*, int)",16,${counter},${dispatch * 7}`);
  const buf = Buffer.from(lines.join('\n') + '\n');
  const { rows, repeated } = snapshot([buf], { head: 3, tail: -1 });
  assert.deepEqual(rows, snapshot([buf]).rows);
  assert.equal(repeated, 6, "three of each dispatch's four rows");
});

test('repeated fields: rows whose first or last fields repeat the row before scan exactly as without (random documents and splits)', () => {
  const next = seededRandom(20);
  const pick = <T>(xs: T[]): T => xs[Math.floor(next() * xs.length)] as T;
  const heads = [
    '1,1,"gemm<1, 2>(float*, int)"',
    '1,1,kernel_3',
    '2,2,"say ""hi"""',
    '2,2,"multi\nline"',
    '-3,12000000000000000001,x',
    '1,1,kernel_',
    '1,1,kernel_33',
    '',
    '1,1',
  ];
  const tails = [
    '12000000000000000000,12000000000000001000',
    '12000000000000000000,12000000000000001001',
    '5,"a,b"',
    '5,"a\nb"',
    '5,',
    '-1,2',
    '5',
  ];
  const ends = ['\n', '\r\n', '\r'];
  // what the WebAssembly fast path (head, two fields, tail) takes, and what it must leave to the JavaScript scanner
  const NAMES = [
    'SQ_WAVES',
    'TCC_HIT[3]',
    '"SQ_WAVES"',
    '"TCC,HIT"',
    '"a""b"',
    '""',
    '"7"',
    'a"b',
    '',
    '7',
    '7x',
    '-x',
    'x\ty',
  ];
  const VALUES = [
    '0',
    '17',
    '123456789012345',
    '1234567890123456',
    '99999999999999999999',
    '16384.000000',
    '2.48342814e-02',
    '1e5',
    '1E+05',
    '1.',
    '.5',
    '0.000000',
    '1e',
    '1e400',
    '3e-23',
    '12345678.12345678',
    '-5',
    '+5',
    '1.5.5',
    '"9"',
    '',
  ];
  let repeatedRows = 0;
  let tailRows = 0;
  const mismatches: string[] = [];
  for (let doc = 0; doc < 300; doc++) {
    const parts: string[] = ['a,b,c,d,e,f\n'];
    let head = pick(heads);
    let tail = pick(tails);
    let end = pick(ends);
    for (let r = 0; r < 2 + Math.floor(next() * 12); r++) {
      if (next() < 0.3) head = pick(heads);
      if (next() < 0.3) tail = pick(tails);
      if (next() < 0.2) end = pick(ends);
      parts.push(`${head},${pick(NAMES)},${pick(VALUES)},${tail}${end}`);
    }
    const text = parts.join('').replace(/[\r\n]+$/, next() < 0.5 ? '' : '\n');
    const buf = Buffer.from(text);
    const expected = snapshot([buf]).rows;
    for (const repeat of [
      { head: 3, tail: 5 },
      { head: 2, tail: 4 },
      { head: 0, tail: 5 },
      { head: 3, tail: -1 },
    ]) {
      const whole = snapshot([buf], repeat);
      assert.deepEqual(whole.rows, expected, `${JSON.stringify(text)} ${JSON.stringify(repeat)}`);
      assert.deepEqual(
        snapshot(randomChunks(buf, next), repeat).rows,
        expected,
        `${JSON.stringify(text)} ${JSON.stringify(repeat)} (chunked)`,
      );
      repeatedRows += whole.repeated;
      tailRows += whole.tailRepeated;
      mismatches.push(...whole.tailMismatches);
    }
  }
  assert.ok(repeatedRows > 500, `rows taken over: ${repeatedRows}`);
  assert.ok(tailRows > 300, `rows whose tail was taken over: ${tailRows}`);
  assert.deepEqual(mismatches, [], 'a row said its tail repeated the row before, and it did not');
});
