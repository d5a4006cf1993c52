// Reads the multipart upload (one field `file`, its filename kept) with explicit limits.
import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { HttpError } from './errors';

export interface Upload {
  fileName: string;
  /** At most maxFileBytes + 1 bytes: one more than the limit means "too large". */
  bytes: Buffer;
  truncated: boolean;
}

const FORM_OVERHEAD = 64 * 1024;

export function readUpload(req: IncomingMessage, maxFileBytes: number): Promise<Upload> {
  const type = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data/i.test(type)) {
    return Promise.reject(new HttpError(422, "Expected a multipart/form-data body with the submission in a field named 'file'"));
  }
  const length = Number(req.headers['content-length']);
  if (Number.isFinite(length) && length > maxFileBytes + FORM_OVERHEAD) {
    return Promise.reject(new HttpError(413, `Submission file is too large (limit: ${Math.round(maxFileBytes / 1e6)}MB).`, { Connection: 'close' }));
  }
  return new Promise<Upload>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { files: 1, fileSize: maxFileBytes + 1, fields: 16, parts: 32, fieldSize: 64 * 1024 } });
    } catch (err) {
      reject(new HttpError(422, `Bad multipart body: ${err instanceof Error ? err.message : String(err)}`));
      return;
    }
    let upload: Upload | null = null;
    let failed: HttpError | null = null;
    let received = 0;
    parser.on('file', (name, stream, info) => {
      if (name !== 'file' || upload) {
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      const current: Upload = { fileName: info.filename ?? '', bytes: Buffer.alloc(0), truncated: false };
      upload = current;
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => {
        current.truncated = true;
      });
      stream.on('end', () => {
        current.bytes = Buffer.concat(chunks);
      });
    });
    parser.on('error', (err: unknown) => {
      failed = new HttpError(400, `Bad multipart body: ${err instanceof Error ? err.message : String(err)}`);
      req.unpipe(parser);
      req.resume();
      reject(failed);
    });
    parser.on('close', () => {
      if (failed) return;
      if (!upload) reject(new HttpError(422, "Missing multipart field 'file' (the submission)"));
      else resolve(upload);
    });
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxFileBytes + FORM_OVERHEAD && !failed) {
        failed = new HttpError(413, `Submission file is too large (limit: ${Math.round(maxFileBytes / 1e6)}MB).`, { Connection: 'close' });
        req.unpipe(parser);
        req.resume();
        reject(failed);
      }
    });
    req.pipe(parser);
  });
}
