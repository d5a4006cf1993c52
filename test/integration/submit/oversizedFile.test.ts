// A kernel file far over the service's 1 MB limit (a sparse 200 MB file: no disk used) is refused by the client
// on its size alone, with the pre-flight check's words, before it is read or anything is sent: by the built CLI
// against a real `kernel-runner serve` and with the embedded runner, and by the MCP `submit` tool over a real MCP
// session. The runner's list of submissions shows none of it; the embedded runner is never started.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, openSync, writeFileSync, ftruncateSync } from 'node:fs';
import path from 'node:path';
import { checkSubmission, sizeProblem, sizeRefusal } from '../../../src/core/submissionChecks';
import { mcpSession } from '../mcpSession';
import { ensureBuilt, runCli, startServe, type ServeProcess } from './helpers';
import { tempDirsRemovedAfter } from '../../support/tempDirs';

const SIZE = 200_000_000;
const dirs = tempDirsRemovedAfter('kr-oversized-file-');
let serve: ServeProcess;
let work: string;
let big: string;

before(async () => {
  ensureBuilt();
  serve = await startServe();
  work = dirs('work');
  big = path.join(work, 'big.py');
  const fd = openSync(big, 'wx');
  ftruncateSync(fd, SIZE);
  closeSync(fd);
  writeFileSync(path.join(work, 'small.py'), 'print("small ran")\n');
});
after(() => serve?.stop());

const refusal = () => sizeRefusal('big.py', SIZE) ?? 'a refusal';

async function submissionNames(): Promise<string[]> {
  const answer = await fetch(`${serve.url}/user/submissions`);
  assert.equal(answer.status, 200);
  return ((await answer.json()) as Array<{ file_name: string }>).map((s) => s.file_name);
}

test("the pre-flight check's message for a size is the one for the same number of bytes", () => {
  assert.match(refusal(), /Submission file is too large \(limit: 1MB\)\. This file has 200,000,000 bytes/);
  assert.equal(sizeProblem(1_000_000), null);
  assert.equal(sizeRefusal('ok.py', 1_000_000), null);
  assert.deepEqual(
    checkSubmission('big.py', new Uint8Array(1_000_001)).find((p) => p.code === 'too-large'),
    sizeProblem(1_000_001),
  );
});

test('CLI against a real serve: exit 2 with the refusal, and the runner never saw the file', async () => {
  const r = await runCli(['submit', '--server', serve.url, 'big.py', '--mode', 'test'], { cwd: work });
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stderr, `kernel-runner: ${refusal()}\n`);
  assert.equal(r.stdout, '');
  // the list the refusal is checked against does show what this client sends
  const small = await runCli(['submit', '--server', serve.url, 'small.py', '--mode', 'test'], { cwd: work });
  assert.equal(small.code, 0, small.stderr);
  assert.deepEqual(await submissionNames(), ['small.py']);
});

test('CLI with the embedded runner: exit 2 with the refusal before the runner is started', async () => {
  // TMPDIR is a file: starting the embedded runner (its data folder goes there) fails, as the control shows
  const notAFolder = path.join(dirs('tmp'), 'file');
  writeFileSync(notAFolder, '');
  const control = await runCli(['submit', 'small.py'], { cwd: work, env: { TMPDIR: notAFolder } });
  assert.equal(control.code, 1);
  assert.match(control.stderr, /ENOTDIR[^\n]*kernel-runner-submit-/);
  const r = await runCli(['submit', 'big.py'], { cwd: work, env: { TMPDIR: notAFolder } });
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stderr, `kernel-runner: ${refusal()}\n`);
});

test('MCP submit over a real session: the same refusal as a tool error, nothing sent', async () => {
  const s = await mcpSession(work, ['--server', serve.url, '--out', dirs('mcp')]);
  try {
    const answer = await s.call('submit', { file: 'big.py', mode: 'test' });
    assert.equal(answer.isError, true);
    assert.match(answer.text, new RegExp(refusal().replace(/[.()]/g, '\\$&')));
  } finally {
    await s.close();
  }
  assert.ok(!(await submissionNames()).includes('big.py'));
});
