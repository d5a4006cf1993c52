import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, chmodSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  defaultPopcornConfigPath,
  PopcornConfigError,
  readPopcornConfig,
  writePopcornCliId,
} from '../../../src/core/popcornConfig';

function tempDir(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'kr-popcorn-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('the default path is ~/.popcorn.yaml', () => {
  assert.match(defaultPopcornConfigPath(), /[\\/]\.popcorn\.yaml$/);
});

test('a missing file reads as no cli_id; writing creates it with mode 0600', async (t) => {
  const file = path.join(tempDir(t), 'sub', '.popcorn.yaml');
  assert.deepEqual(await readPopcornConfig(file), { path: file, exists: false });
  await writePopcornCliId('3f2b8c1e-0d7a-4e55-9a51-2d4c8b6f7e10', file);
  assert.equal(readFileSync(file, 'utf8'), 'cli_id: 3f2b8c1e-0d7a-4e55-9a51-2d4c8b6f7e10\n');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.deepEqual(await readPopcornConfig(file), {
    path: file,
    exists: true,
    cliId: '3f2b8c1e-0d7a-4e55-9a51-2d4c8b6f7e10',
  });
});

test('writing keeps other keys, comments, order and the file mode', async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, '.popcorn.yaml');
  const before = [
    '# written by popcorn-cli, edited by hand',
    'api_url: https://example.invalid  # my server',
    'cli_id: old-id',
    'ui:',
    '  theme: dark',
    '  recent: [amd-fp8-mm, grayscale]',
    '',
  ].join('\n');
  writeFileSync(file, before);
  chmodSync(file, 0o640);
  assert.equal((await readPopcornConfig(file)).cliId, 'old-id');
  await writePopcornCliId('new-id', file);
  assert.equal(readFileSync(file, 'utf8'), before.replace('cli_id: old-id', 'cli_id: new-id'));
  assert.equal(statSync(file).mode & 0o777, 0o640);
  assert.deepEqual(readdirSync(dir), ['.popcorn.yaml'], 'no temp file left behind');

  writeFileSync(file, '# only a comment\nother: 1\n');
  await writePopcornCliId('added', file);
  assert.equal(readFileSync(file, 'utf8'), '# only a comment\nother: 1\ncli_id: added\n');
});

test('quoted, empty and flow-style cli_id values are replaced cleanly', async (t) => {
  const file = path.join(tempDir(t), '.popcorn.yaml');
  const cases: Array<[string, string, string]> = [
    ['cli_id: "old-id" # keep me\nx: 1\n', 'new-id', 'cli_id: new-id # keep me\nx: 1\n'],
    ["cli_id: 'old'\n", 'true', 'cli_id: "true"\n'],
    ['x: 1\ncli_id:\n', 'abc', 'x: 1\ncli_id: abc\n'],
    ['{x: 1, cli_id: old}\n', 'abc', '{x: 1, cli_id: abc}\n'],
    ['{x: 1}\n', 'abc', '{x: 1, cli_id: abc}\n'],
    ['x: 1', 'abc', 'x: 1\ncli_id: abc\n'],
  ];
  for (const [before, id, after] of cases) {
    writeFileSync(file, before);
    await writePopcornCliId(id, file);
    assert.equal(readFileSync(file, 'utf8'), after, JSON.stringify(before));
    assert.equal((await readPopcornConfig(file)).cliId, id);
  }
});

test('malformed configs are clear errors, and are not overwritten', async (t) => {
  const dir = tempDir(t);
  // [content, the read's error, whether writing a cli_id is refused (the file kept as it is)]
  const cases: Array<[string, RegExp, boolean]> = [
    ['cli_id: [unclosed\n', /is not valid YAML/, true],
    ['- a list\n', /must hold a YAML map/, true],
    ['cli_id: 12345\n', /cli_id must be a non-empty string/, false],
  ];
  for (const [i, [content, message, refused]] of cases.entries()) {
    const file = path.join(dir, `bad${i}.yaml`);
    writeFileSync(file, content);
    await assert.rejects(
      readPopcornConfig(file),
      (err: unknown) => err instanceof PopcornConfigError && message.test(err.message) && err.message.includes(file),
    );
    const write = await writePopcornCliId('x', file).then(
      () => 'written',
      (err: unknown) => (err instanceof PopcornConfigError ? 'refused' : String(err)),
    );
    assert.equal(write, refused ? 'refused' : 'written', content);
    assert.equal(
      readFileSync(file, 'utf8') === content,
      refused,
      `the file is kept only when the write is refused: ${content}`,
    );
  }
  await assert.rejects(writePopcornCliId('two\nlines', path.join(dir, 'c.yaml')), PopcornConfigError);
});
