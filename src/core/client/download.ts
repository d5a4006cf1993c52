// Streams an artifact to a file: written beside the target as a temporary part, checked against Content-Length,
// then moved into place. With overwrite false (the default) an existing file is never replaced (EEXIST).
import { createWriteStream } from 'node:fs';
import { link, rename, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { RunnerClientError } from './errors';
import type { Transport } from './http';

export interface DownloadOptions {
  signal?: AbortSignal;
  overwrite?: boolean;
  onProgress?: (received: number, total: number | undefined) => void;
  connectTimeoutMs?: number;
}

export interface DownloadResult {
  path: string;
  bytes: number;
  /** File name the server suggested (Content-Disposition), if any. */
  suggestedName: string | undefined;
}

function fileNameFromDisposition(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const star = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header);
  if (star?.[1]) {
    try {
      return decodeURIComponent(star[1].trim());
    } catch {
      // fall through to the plain form
    }
  }
  const plain = /filename\s*=\s*"([^"]*)"|filename\s*=\s*([^;]+)/.exec(header);
  const name = plain?.[1] ?? plain?.[2]?.trim();
  return name || undefined;
}

export async function downloadToFile(
  transport: Transport,
  pathOrUrl: string,
  dest: string,
  options: DownloadOptions = {},
): Promise<DownloadResult> {
  const target = transport.url(pathOrUrl);
  const res = await transport.stream('GET', target, {
    signal: options.signal,
    connectTimeoutMs: options.connectTimeoutMs,
    headers: { Accept: '*/*' },
  });
  const lengthHeader = res.headers['content-length'];
  const total = lengthHeader !== undefined && /^\d+$/.test(lengthHeader) ? Number(lengthHeader) : undefined;
  const part = `${dest}.${randomBytes(4).toString('hex')}.part`;
  let received = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      received += chunk.length;
      options.onProgress?.(received, total);
      done(null, chunk);
    },
  });
  try {
    await pipeline(res.body, counter, createWriteStream(part, { flags: 'wx' }));
    if (total !== undefined && received !== total) {
      throw new RunnerClientError('network', 'The download was cut short', {
        method: 'GET',
        url: transport.show(target),
        detail: `received ${received} of ${total} bytes`,
      });
    }
    if (options.overwrite) {
      await rename(part, dest);
    } else {
      await link(part, dest); // fails with EEXIST rather than replacing a file
      await rm(part, { force: true });
    }
  } catch (err) {
    await rm(part, { force: true });
    if (err instanceof RunnerClientError) throw err;
    if (options.signal?.aborted) {
      throw new RunnerClientError('cancelled', 'Download cancelled', {
        method: 'GET',
        url: transport.show(target),
        cause: err,
      });
    }
    // Local file-system errors (EEXIST when the file is already there, EACCES, ENOSPC, ...) name the path: pass them on.
    if (err instanceof Error && 'syscall' in err && 'path' in err) throw err;
    throw transport.toError(err, 'GET', target);
  }
  return { path: dest, bytes: received, suggestedName: fileNameFromDisposition(res.headers['content-disposition']) };
}
