// The upload of a submission: a multipart/form-data body with one `file` field (and our runner's optional text fields), the same bytes axios writes for a
// FormData holding a Blob. Built by hand because in Node 20 the FormData and Blob globals load undici, which is a
// noticeable part of every `kernel-runner submit` start.
import { randomBytes } from 'node:crypto';

export interface MultipartBody {
  body: Buffer;
  /** `multipart/form-data; boundary=...` */
  contentType: string;
}

/** Quotes a name in a Content-Disposition header as browsers (and axios) do. */
function escapeName(name: string): string {
  return name.replace(/[\r\n"]/g, (c) => (c === '\r' ? '%0D' : c === '\n' ? '%0A' : '%22'));
}

function newBoundary(content: Uint8Array): string {
  for (;;) {
    const boundary = `form-data-boundary-${randomBytes(19).toString('base64url').slice(0, 25)}`;
    if (Buffer.from(content.buffer, content.byteOffset, content.byteLength).indexOf(boundary) < 0) return boundary;
  }
}

export function multipartFile(
  field: string,
  fileName: string,
  content: Uint8Array | string,
  fields: ReadonlyArray<readonly [string, string]> = [],
): MultipartBody {
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  // the boundary must not occur in the file nor in a field's name or value
  const values = Buffer.from(fields.map(([k, v]) => `${k}\n${v}`).join('\n'), 'utf8');
  const boundary = newBoundary(Buffer.concat([Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), values]));
  // other form fields (profile options) go before the file, as browsers write them in form order
  const parts = fields.map(([name, value]) =>
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${escapeName(name)}"\r\n\r\n${value}\r\n`,
      'utf8',
    ),
  );
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${escapeName(field)}"; filename="${escapeName(fileName)}"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
    'utf8',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8');
  return {
    body: Buffer.concat([...parts, head, bytes, tail]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}
