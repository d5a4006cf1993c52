// readRegularFile: a file named by someone else is read only when it is a regular file; a FIFO (with or without a
// writer waiting), a character device, a folder and a file over the size given are refused, and nothing blocks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { readRegularFile } from '../../../src/trace/regularFile';
import { TraceInputError } from '../../../src/trace/errors';
import { tempDirsRemovedAfter } from '../../support/tempDirs';

const tempDir = tempDirsRemovedAfter('kr-regular-file-');

test('a regular file is read, also through a link to one', async () => {
  const dir = tempDir('ok');
  writeFileSync(path.join(dir, 'k.py'), 'print(1)\n');
  symlinkSync(path.join(dir, 'k.py'), path.join(dir, 'link.py'));
  assert.equal((await readRegularFile(path.join(dir, 'k.py'), 100, 'a kernel file')).toString(), 'print(1)\n');
  assert.equal((await readRegularFile(path.join(dir, 'link.py'), 100, 'a kernel file')).toString(), 'print(1)\n');
});

test('a FIFO, a link to one, a device, a folder, a missing path and an oversized file are refused', async () => {
  const dir = tempDir('bad');
  const fifo = path.join(dir, 'k.py');
  execFileSync('mkfifo', [fifo]);
  symlinkSync(fifo, path.join(dir, 'to-fifo.py'));
  writeFileSync(path.join(dir, 'big.py'), 'x'.repeat(101));
  const cases: Array<[string, RegExp]> = [
    [
      fifo,
      /k\.py: a named pipe \(FIFO\), not a file or a folder: refused, reading it could block forever \(expected a kernel file\)/,
    ],
    [path.join(dir, 'to-fifo.py'), /a named pipe \(FIFO\)/],
    ['/dev/zero', /\/dev\/zero: a character device, not a file or a folder: refused/],
    [dir, /: a folder, not a regular file: refused \(expected a kernel file\)/],
    [path.join(dir, 'none.py'), /none\.py: no such file or directory \(expected a kernel file\)/],
    [path.join(dir, 'big.py'), /big\.py: 101 bytes, more than the 100 read \(expected a kernel file\): refused/],
  ];
  for (const [p, message] of cases)
    await assert.rejects(readRegularFile(p, 100, 'a kernel file'), (err: Error) => {
      assert.ok(err instanceof TraceInputError, String(err));
      assert.match(err.message, message);
      return true;
    });
});
