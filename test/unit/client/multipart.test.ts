// The upload body is built by hand: a real multipart parser (busboy, the runner's) must read back the same name and
// bytes, whatever the file holds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import busboy from 'busboy';
import { multipartFile } from '../../../src/core/client/multipart';

function parse(body: Buffer, contentType: string): Promise<Array<{ field: string; filename: string; bytes: Buffer }>> {
  return new Promise((resolve, reject) => {
    const files: Array<{ field: string; filename: string; bytes: Buffer }> = [];
    const bb = busboy({ headers: { 'content-type': contentType } });
    bb.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => files.push({ field, filename: info.filename ?? '', bytes: Buffer.concat(chunks) }));
    });
    bb.on('error', reject);
    bb.on('close', () => resolve(files));
    bb.end(body);
  });
}

test('one file field, read back byte for byte by a multipart parser', async () => {
  const content = Buffer.concat([
    Buffer.from('print("hé")\r\n--form-data-boundary-x\r\n'),
    Buffer.from([0, 255, 13, 10, 45, 45]),
  ]);
  const { body, contentType } = multipartFile('file', 'submission.py', content);
  assert.match(contentType, /^multipart\/form-data; boundary=form-data-boundary-[A-Za-z0-9_-]{25}$/);
  assert.deepEqual(await parse(body, contentType), [{ field: 'file', filename: 'submission.py', bytes: content }]);
});

test('text content is sent as UTF-8, and quotes or line breaks in the name cannot break the header', async () => {
  const { body, contentType } = multipartFile('file', 'a"b\r\nc.py', 'x = "€"\n');
  const [file] = await parse(body, contentType);
  assert.equal(file?.filename, 'a%22b%0D%0Ac.py');
  assert.equal(file?.bytes.toString('utf8'), 'x = "€"\n');
  assert.ok(body.includes('filename="a%22b%0D%0Ac.py"'));
});
