// Hostile zips: what a zip says it unpacks to is checked before anything is inflated.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createWriteStream, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import { Readable } from 'node:stream';
import { deflateRawSync } from 'node:zlib';
import { ZipArchive } from 'archiver';
import { summarizePath, TraceInputError } from '../../../src/trace/index';
import { fixture } from './helpers';
import { tempDirsRemovedAfter } from '../../support/tempDirs';

const tempDir = tempDirsRemovedAfter('kr-trace-');

/** CRC-32 (IEEE), for the zip headers. */
function crc32(buf: Buffer): number {
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

/** A one-entry deflated zip whose headers claim `claimedSize` uncompressed bytes, whatever the data inflates to. */
function zipClaiming(name: string, data: Buffer, claimedSize: number): Buffer {
  const deflated = deflateRawSync(data);
  const nameBuf = Buffer.from(name);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(8, 8);
  local.writeUInt32LE(crc32(data), 14);
  local.writeUInt32LE(deflated.length, 18);
  local.writeUInt32LE(claimedSize, 22);
  local.writeUInt16LE(nameBuf.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(crc32(data), 16);
  central.writeUInt32LE(deflated.length, 20);
  central.writeUInt32LE(claimedSize, 24);
  central.writeUInt16LE(nameBuf.length, 28);
  const cdOffset = local.length + nameBuf.length + deflated.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + nameBuf.length, 12);
  end.writeUInt32LE(cdOffset, 16);
  return Buffer.concat([local, nameBuf, deflated, central, nameBuf, end]);
}

test('a small zip that claims gigabytes is refused before anything is inflated', async () => {
  const file = path.join(tempDir('bomb'), 'profile.zip');
  // 4 KiB of zeros in about 30 bytes, declared as 3.9 GiB
  writeFileSync(file, zipClaiming('4242_results.db', Buffer.alloc(4096), 0xf0000000));
  const before = process.memoryUsage().rss;
  await assert.rejects(summarizePath(file), (err: Error) => {
    assert.ok(err instanceof TraceInputError);
    assert.match(
      err.message,
      /profile\.zip: refused: entry 4242_results\.db would unpack \d+ bytes to 4026531840 \(\d+:1, over the 200:1 that rocprof output reaches\): not a profile, possibly a zip bomb$/,
    );
    return true;
  });
  assert.ok(process.memoryUsage().rss - before < 256 * 1024 * 1024, 'nothing near the claimed size was allocated');
});

/** `dir/profile.zip` with what `add` puts in it, at zlib `level`. */
async function writeZip(dir: string, level: number, add: (archive: ZipArchive) => void): Promise<string> {
  const file = path.join(dir, 'profile.zip');
  const archive = new ZipArchive({ zlib: { level } });
  const out = createWriteStream(file);
  archive.pipe(out);
  add(archive);
  await archive.finalize();
  if (!out.writableFinished) await once(out, 'finish');
  return file;
}

test('a real deflate bomb (64 MiB of zeros in ~64 KiB) is refused by its ratio, with no entry inflated', async () => {
  const chunk = Buffer.alloc(1024 * 1024);
  let left = 64;
  const file = await writeZip(tempDir('bomb2'), 9, (archive) => {
    archive.append(
      new Readable({
        read() {
          this.push(left-- > 0 ? chunk : null);
        },
      }),
      { name: '7_kernel_trace.csv' },
    );
  });
  const before = process.memoryUsage().rss;
  await assert.rejects(summarizePath(file), /7_kernel_trace\.csv would unpack \d+ bytes to 67108864 \(\d+:1/);
  assert.ok(process.memoryUsage().rss - before < 48 * 1024 * 1024, 'the 64 MiB entry was not inflated');
});

test('the total uncompressed size of a zip is limited, with a message that says what to do', async () => {
  const file = await writeZip(tempDir('big'), 1, (archive) => {
    archive.file(fixture('rocm-systems__sdkdocs__kernel_trace.csv'), { name: '1_kernel_trace.csv' });
    archive.file(fixture('rocm-systems__sdkdocs__memory_copy_trace.csv'), { name: '1_memory_copy_trace.csv' });
  });
  await assert.rejects(
    summarizePath(file, { zip: { maxTotalBytes: 2000 } }),
    /profile\.zip: refused: the entries unpack to more than 2000 bytes \(\d+ bytes with entry 1_\w+\.csv\); unpack it yourself and summarise the folder$/,
  );
  const s = await summarizePath(file);
  assert.equal(s.kernelTotals.calls, 9, 'within the default limits it is read');
});
