// Test helpers for the trace toolkit: fixture paths, and a deliberately simple reference CSV parser and
// reference aggregates (string-based, one character at a time) to check the byte scanner and readers against.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
export { seededRandom } from '../../support/random';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const fixtures = path.resolve(repoRoot, '../shared/fixtures/rocprof');
export const fixture = (name: string): string => path.join(fixtures, name);

export function tempDir(tag: string): string {
  return mkdtempSync(path.join(tmpdir(), `kr-trace-${tag}-`));
}

/** RFC 4180 reference parser: quoted fields, doubled quotes, CRLF/LF, newlines inside quotes. */
export function parseCsvReference(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let inQuotes = false;
  let fieldStarted = false;
  const endRow = () => {
    row.push(field);
    if (!(row.length === 1 && row[0] === '' && !fieldStarted)) rows.push(row);
    row = [];
    field = '';
    fieldStarted = false;
  };
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (; i < text.length; i++) {
    const c = text[i];
    if (inQuotes) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else {
          inQuotes = false;
        }
      } else {
        field += c;
      }
    } else if (c === '"') {
      inQuotes = true;
      fieldStarted = true;
    } else if (c === ',') {
      row.push(field);
      field = '';
      fieldStarted = true;
    } else if (c === '\r' || c === '\n') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endRow();
    } else {
      field += c;
      fieldStarted = true;
    }
  }
  if (field !== '' || row.length > 0 || fieldStarted) endRow();
  return rows;
}

export interface RefKernel {
  calls: number;
  total: number;
  min: number;
  max: number;
  /** sample standard deviation */
  stddev: number;
  durations: number[];
}

/** Per-kernel aggregates of a kernel_trace CSV, by the reference parser and plain arithmetic. */
export function referenceKernels(
  file: string,
  nameCol = 'Kernel_Name',
  startCol = 'Start_Timestamp',
  endCol = 'End_Timestamp',
) {
  const [header, ...rows] = parseCsvReference(readFileSync(file, 'utf8'));
  const h = header as string[];
  const iName = h.indexOf(nameCol);
  const iStart = h.indexOf(startCol);
  const iEnd = h.indexOf(endCol);
  const out = new Map<string, RefKernel>();
  const intervals: Array<[number, number]> = [];
  for (const r of rows) {
    const s = Number(r[iStart]);
    const e = Number(r[iEnd]);
    const d = e - s;
    intervals.push([s, e]);
    const name = r[iName] as string;
    const k = out.get(name) ?? { calls: 0, total: 0, min: Infinity, max: -Infinity, stddev: 0, durations: [] };
    k.calls++;
    k.total += d;
    k.min = Math.min(k.min, d);
    k.max = Math.max(k.max, d);
    k.durations.push(d);
    out.set(name, k);
  }
  for (const k of out.values()) {
    const mean = k.total / k.calls;
    k.stddev = k.calls > 1 ? Math.sqrt(k.durations.reduce((s, d) => s + (d - mean) ** 2, 0) / (k.calls - 1)) : 0;
  }
  return { kernels: out, intervals, header: h, rows };
}

/** Union length of intervals by sorting and merging (the textbook way). */
export function unionLength(intervals: Array<[number, number]>): number {
  const sorted = [...intervals].filter(([s, e]) => e > s).sort((a, b) => a[0] - b[0]);
  let total = 0;
  let cs = -Infinity;
  let ce = -Infinity;
  for (const [s, e] of sorted) {
    if (s > ce) {
      if (ce > cs) total += ce - cs;
      cs = s;
      ce = e;
    } else if (e > ce) {
      ce = e;
    }
  }
  if (ce > cs) total += ce - cs;
  return total;
}

/** Writes rows the way rocprofv3 does: strings and the header quoted, numbers bare. */
export function toRocprofCsv(header: string[], rows: string[][], eol = '\n'): string {
  const cell = (v: string): string => (/^-?\d+(\.\d+)?$/.test(v) ? v : `"${v.replaceAll('"', '""')}"`);
  return [header.map((h) => `"${h}"`).join(','), ...rows.map((r) => r.map(cell).join(','))].join(eol) + eol;
}

/** Drops or adds columns of a CSV text, for building other header variants from a real fixture. */
export function reshapeCsv(text: string, edit: (header: string[], rows: string[][]) => [string[], string[][]]): string {
  const [header, ...rows] = parseCsvReference(text);
  const [h, r] = edit(header as string[], rows);
  return toRocprofCsv(h, r);
}
