// Reads the multipart upload (one field `file`, its filename kept) with explicit limits. Every stream involved
// (the request, busboy, busboy's file stream) has its error handled: a truncated, garbled or aborted upload is a
// 400 with a {detail}, never an uncaught error. Nothing is written to disk here: the file is kept in memory.
import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { HttpError } from './errors';
import { errorMessage } from '../../core/errors';
import { FORM_OVERHEAD_BYTES } from '../limits';

export interface Upload {
  fileName: string;
  /** At most maxFileBytes + 1 bytes: one more than the limit means "too large". */
  bytes: Buffer;
  truncated: boolean;
  /** Form fields beside the file (profile mode's options: core/profileOptions.ts), name -> value. */
  fields: Record<string, string>;
}

const message = (err: unknown) => errorMessage(err);

export function readUpload(req: IncomingMessage, maxFileBytes: number): Promise<Upload> {
  const type = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data/i.test(type)) {
    return Promise.reject(
      new HttpError(422, "Expected a multipart/form-data body with the submission in a field named 'file'"),
    );
  }
  const length = Number(req.headers['content-length']);
  if (Number.isFinite(length) && length > maxFileBytes + FORM_OVERHEAD_BYTES) {
    return Promise.reject(
      new HttpError(413, `Submission file is too large (limit: ${Math.round(maxFileBytes / 1e6)}MB).`, {
        Connection: 'close',
      }),
    );
  }
  return new Promise<Upload>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: { files: 1, fileSize: maxFileBytes + 1, fields: 16, parts: 32, fieldSize: 64 * 1024 },
      });
    } catch (err) {
      reject(new HttpError(422, `Bad multipart body: ${message(err)}`));
      return;
    }
    let upload: Upload | null = null;
    const fields: Record<string, string> = Object.create(null) as Record<string, string>;
    let fileDone = true;
    let parserDone = false;
    let settled = false;
    let received = 0;

    /** The check after the request's end (below); cleared when the upload settles, so it keeps nothing alive. */
    let endCheck: NodeJS.Timeout | null = null;
    const cleanup = () => {
      req.off('data', onData);
      req.off('aborted', onAborted);
      req.off('end', onEnd);
      if (endCheck) clearTimeout(endCheck);
    };
    /** Refuses the upload once; no more of the body is read (the answer closes the connection: see refuse() in index.ts). */
    const fail = (err: HttpError) => {
      if (settled) return;
      settled = true;
      cleanup();
      req.unpipe(parser);
      // keep listening for late errors of the parser and its streams: they must not become uncaught
      parser.on('error', () => undefined);
      parser.removeAllListeners('file');
      parser.on('file', (_name, stream) => {
        stream.on('error', () => undefined);
        stream.resume();
      });
      req.pause();
      reject(err);
    };
    const bad = (err: unknown) =>
      fail(new HttpError(400, `Bad multipart body: ${message(err)}`, { Connection: 'close' }));
    const finish = () => {
      if (settled || !parserDone || !fileDone) return;
      settled = true;
      cleanup();
      if (!upload) reject(new HttpError(422, "Missing multipart field 'file' (the submission)"));
      else resolve(upload);
    };

    parser.on('file', (name, stream, info) => {
      stream.on('error', bad);
      if (name !== 'file' || upload || settled) {
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      const current: Upload = { fileName: info.filename ?? '', bytes: Buffer.alloc(0), truncated: false, fields };
      upload = current;
      fileDone = false;
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => {
        current.truncated = true;
      });
      stream.on('end', () => {
        current.bytes = Buffer.concat(chunks);
        fileDone = true;
        finish();
      });
    });
    parser.on('field', (name, value, info) => {
      if (settled) return;
      if (info.nameTruncated || info.valueTruncated) {
        fail(new HttpError(400, `Form field '${name.slice(0, 64)}' is too long`, { Connection: 'close' }));
      } else if (name in fields) {
        fail(new HttpError(400, `Form field '${name.slice(0, 64)}' is given twice`, { Connection: 'close' }));
      } else fields[name] = value;
    });
    parser.on('error', bad);
    parser.on('close', () => {
      parserDone = true;
      finish();
    });
    // the request itself: a client that goes away mid-body, or a socket error
    req.on('error', (err) => bad(err));
    const onAborted = () => bad(new Error('the upload was aborted before its end'));
    req.on('aborted', onAborted);
    // busboy reports a body that ends early itself ("Unexpected end of form"); this catches a parser that has not
    // said anything by the time the request is over
    const onEnd = () => {
      if (settled) return;
      endCheck = setTimeout(() => {
        if (!settled && !parserDone) bad(new Error('Unexpected end of form'));
      }, 1000);
    };
    req.on('end', onEnd);
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxFileBytes + FORM_OVERHEAD_BYTES) {
        fail(
          new HttpError(413, `Submission file is too large (limit: ${Math.round(maxFileBytes / 1e6)}MB).`, {
            Connection: 'close',
          }),
        );
      }
    };
    req.on('data', onData);
    req.pipe(parser);
  });
}
