// Hostile inputs of summarize/compare/isa: a zip whose entries share one member's bytes (each entry's size and
// ratio look honest, the copies do not), and paths that are no file (a FIFO: opening it would wait for a writer).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { constants, openSync, closeSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { summarizePath, TraceInputError } from '../../../src/trace/index';
import { CodeObjectError, loadCodeObjectsPath } from '../../../src/trace/codeObjects/index';
import { fixture } from './helpers';
import { tempDirsRemovedAfter } from '../../support/tempDirs';

const tempDir = tempDirsRemovedAfter('kr-hostile-');

/**
 * One deflated member at offset 0 and `names.length` central-directory entries that all point at it: the layout of
 * the overlapping-entry zip of issue 19 (140 names for one member).
 */
function overlappingZip(names: string[], compressed: Buffer, uncompressedSize: number): Buffer {
  /** A header: its signature, then at `at` (the version needed) the deflate method, sizes and name length. */
  const header = (length: number, signature: number, at: number, name: Buffer) => {
    const h = Buffer.alloc(length);
    h.writeUInt32LE(signature, 0);
    h.writeUInt16LE(20, at);
    h.writeUInt16LE(8, at + 4);
    h.writeUInt32LE(compressed.length, at + 14);
    h.writeUInt32LE(uncompressedSize, at + 18);
    h.writeUInt16LE(name.length, at + 22);
    return h;
  };
  const first = Buffer.from(names[0] as string);
  const head = Buffer.concat([header(30, 0x04034b50, 4, first), first, compressed]);
  const centrals = names.map((name) => {
    const n = Buffer.from(name);
    const c = header(46, 0x02014b50, 6, n);
    c.writeUInt16LE(20, 4); // made by
    c.writeUInt32LE(0, 42); // every entry's local header: the one member's
    return Buffer.concat([c, n]);
  });
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(names.length, 8);
  end.writeUInt16LE(names.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(head.length, 16);
  return Buffer.concat([head, cd, end]);
}

const names = Array.from({ length: 140 }, (_, i) => `run${i}/1_kernel_trace.csv`);

test('a zip whose 140 entries point at one member is refused before any entry is read, by summarize and isa', async () => {
  const dir = tempDir('overlap');
  // a real kernel trace: were the entries read, 140 copies of its dispatches would be counted
  const csv = readFileSync(fixture('rocm-systems__sdkdocs__kernel_trace.csv'));
  const real = path.join(dir, 'real.zip');
  writeFileSync(real, overlappingZip(names, deflateRawSync(csv), csv.length));
  await assert.rejects(summarizePath(real), (err: Error) => {
    assert.ok(err instanceof TraceInputError, String(err));
    assert.match(
      err.message,
      /real\.zip: refused: entries run\d+\/1_kernel_trace\.csv and run\d+\/1_kernel_trace\.csv share their bytes in the archive/,
    );
    return true;
  });
  // the same layout with data that cannot inflate: had any entry been opened, the error would be zlib's
  const garbage = path.join(dir, 'garbage.zip');
  writeFileSync(garbage, overlappingZip(names, Buffer.alloc(1024 * 1024, 0xff), 20 * 1024 * 1024));
  await assert.rejects(summarizePath(garbage), /garbage\.zip: refused: entries .* share their bytes/);
  await assert.rejects(loadCodeObjectsPath(garbage), (err: Error) => {
    assert.ok(err instanceof CodeObjectError, String(err));
    assert.match(err.message, /garbage\.zip: unreadable zip \(refused: entries .* share their bytes/);
    return true;
  });
  // one entry of that member alone is a normal zip, and read
  const single = path.join(dir, 'single.zip');
  writeFileSync(single, overlappingZip(names.slice(0, 1), deflateRawSync(csv), csv.length));
  const summary = await summarizePath(single);
  assert.ok(summary.kernelTotals.calls > 0, 'the one entry is summarised');
});

/** Nothing holds the FIFO's read end: a writer that does not wait is told there is no reader (ENXIO). */
function assertNoReader(fifo: string): void {
  assert.throws(() => closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK)), { code: 'ENXIO' });
}

test('a FIFO, a socket: summarize and isa refuse them at once, without opening them', { timeout: 60_000 }, async () => {
  const dir = tempDir('fifo');
  const fifo = path.join(dir, 'trace.zip');
  execFileSync('mkfifo', [fifo]);
  await assert.rejects(summarizePath(fifo), (err: Error) => {
    assert.ok(err instanceof TraceInputError, String(err));
    assert.match(err.message, /trace\.zip: a named pipe \(FIFO\), not a file or a folder: refused/);
    return true;
  });
  assertNoReader(fifo);
  const plain = path.join(dir, 'kernel_trace.csv');
  execFileSync('mkfifo', [plain]);
  await assert.rejects(summarizePath(plain), /kernel_trace\.csv: a named pipe \(FIFO\)/);
  await assert.rejects(loadCodeObjectsPath(plain), (err: Error) => {
    assert.ok(err instanceof CodeObjectError, String(err));
    assert.match(err.message, /a named pipe \(FIFO\), not a file or a folder: refused/);
    return true;
  });
  assertNoReader(plain);
  const sock = path.join(dir, 'code.hsaco');
  const server = createServer();
  await new Promise<void>((r) => server.listen(sock, () => r()));
  try {
    await assert.rejects(loadCodeObjectsPath(sock), /code\.hsaco: a socket, not a file or a folder/);
    await assert.rejects(summarizePath(sock), /code\.hsaco: a socket, not a file or a folder/);
  } finally {
    server.close();
  }
});
