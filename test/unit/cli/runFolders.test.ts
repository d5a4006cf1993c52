// RunFolders: what the MCP server writes under ./kernel-runner-traces goes into fresh folders of real folders, never
// through a link and never over a file; run ids carry the time and a random part.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { newRunId, RunFolderError, RunFolders } from '../../../src/cli/mcp/runFolders';
import { snapshot } from '../../support/fileSnapshot';
import { tempDirsRemovedAfter } from '../../support/tempDirs';

const tempDir = tempDirsRemovedAfter('kr-run-folders-');

test('run ids: the UTC time to the second, then a random part; two at once differ', () => {
  const at = new Date(Date.UTC(2026, 11, 4, 14, 13, 2));
  assert.match(newRunId(at), /^r20261204-141302-[0-9a-f]{6}$/);
  const ids = new Set(Array.from({ length: 1000 }, () => newRunId(at)));
  assert.ok(ids.size > 990, 'a random part of 24 bits: collisions are rare, and never overwrite (O_EXCL)');
});

test('code is saved in a fresh folder under its base name; the same run id twice is refused', async () => {
  const root = path.join(tempDir('fresh'), 'kernel-runner-traces');
  const folders = new RunFolders(root);
  await folders.check();
  assert.deepEqual(readdirSync(root).sort(), ['results', 'submissions', 'traces']);
  const file = await folders.saveSubmission('r1', '../../.bashrc', 'print(1)\n');
  assert.equal(file, path.join(root, 'submissions', 'r1', '.bashrc'));
  assert.equal(readFileSync(file, 'utf8'), 'print(1)\n');
  await assert.rejects(folders.saveSubmission('r1', 'k.py', 'x'), /submissions\/r1 already exists: refused/);
  await assert.rejects(folders.saveSubmission('r2', '..', 'x'), /file_name "\.\." names no file/);
  const result = await folders.saveResult('k-r1-test.result.json', '{}\n');
  await assert.rejects(folders.saveResult('k-r1-test.result.json', '{"other":1}\n'), /already exists: refused/);
  assert.equal(readFileSync(result, 'utf8'), '{}\n');
});

test('a link anywhere on the way is refused, and nothing is written where it points', async () => {
  const home = tempDir('home');
  writeFileSync(path.join(home, '.bashrc'), 'export A=1\n');
  writeFileSync(path.join(home, 'k-r1-test.result.json'), 'mine\n');
  const before = snapshot(home);
  const setups: Array<[string, RunFolders]> = [];
  for (const [what, plant] of [
    ['the root', (root: string) => symlinkSync(home, root)],
    ['submissions', (root: string) => (mkdirSync(root), symlinkSync(home, path.join(root, 'submissions')))],
    ['results', (root: string) => (mkdirSync(root), symlinkSync(home, path.join(root, 'results')))],
    ['traces', (root: string) => (mkdirSync(root), symlinkSync(home, path.join(root, 'traces')))],
    [
      'a run folder',
      (root: string) => (
        mkdirSync(path.join(root, 'submissions'), { recursive: true }),
        symlinkSync(home, path.join(root, 'submissions', 'r1'))
      ),
    ],
  ] as const) {
    const root = path.join(tempDir('planted'), 'kernel-runner-traces');
    plant(root);
    const folders = new RunFolders(root);
    setups.push([what, folders]);
  }
  for (const [what, folders] of setups) {
    // as submit does: the folders checked first, then the code saved
    const save = async () => {
      await folders.check();
      await folders.saveSubmission('r1', '.bashrc', 'echo pwned\n');
    };
    await assert.rejects(save(), (err: Error) => {
      assert.ok(err instanceof RunFolderError, `${what}: ${String(err)}`);
      assert.match(err.message, /is a link: refused|already exists: refused/, what);
      return true;
    });
    await folders.saveResult('k-r1-test.result.json', 'theirs\n').catch(() => undefined);
    await folders.tracesFolder('r1').catch(() => undefined);
  }
  assert.deepEqual(snapshot(home), before);
});

test('sessions that create the folders at the same moment all get them (one mkdir loses the race: not an error)', async () => {
  const root = path.join(tempDir('race'), 'kernel-runner-traces');
  const sessions = Array.from({ length: 8 }, () => new RunFolders(root));
  const saved = await Promise.all(
    sessions.map((f, i) => f.saveSubmission(`r${i}`, 'k.py', `print(${i})\n`).then(() => f.check())),
  );
  assert.equal(saved.length, 8);
  assert.deepEqual(readdirSync(root).sort(), ['results', 'submissions', 'traces']);
  assert.deepEqual(readdirSync(path.join(root, 'submissions')).sort(), [
    'r0',
    'r1',
    'r2',
    'r3',
    'r4',
    'r5',
    'r6',
    'r7',
  ]);
  const linked = path.join(tempDir('race-link'), 'kernel-runner-traces');
  mkdirSync(linked);
  symlinkSync(tempDir('elsewhere'), path.join(linked, 'results'));
  await assert.rejects(
    Promise.all([new RunFolders(linked).check(), new RunFolders(linked).check()]),
    /results is a link: refused/,
  );
});
