// The bundled multi-GPU example (examples/problems/distributed/alltoall_py, eight rank processes) submitted with the
// built CLI where a job gets one device: the embedded runner and a `serve` of this GPU-less machine refuse nothing
// themselves, and the CLI stops before sending, saying which slot runs it and how to get one. Done as the message
// says (`serve --gpu-name MI300x8`, `--gpu MI300x8`), the example's tests pass.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { ensureBuilt, problems, runCli, startServe, tempDir, type ServeProcess } from './helpers';

const submission = path.join(problems, 'distributed/alltoall_py/submission.py');
let work: string;
let single: ServeProcess | undefined;
let eight: ServeProcess | undefined;

before(async () => {
  ensureBuilt();
  work = tempDir('kr-submit-mgpu-');
  [single, eight] = await Promise.all([startServe(), startServe(['--gpu-name', 'MI300x8'])]);
});

after(async () => {
  await Promise.all([single?.stop(), eight?.stop()]);
  if (work) rmSync(work, { recursive: true, force: true });
});

test('the embedded runner (one device): refused before a job, with the serve flag and the submit line that run it', async () => {
  const r = await runCli(['submit', submission, '--mode', 'test'], { cwd: work });
  assert.notEqual(r.code, 0);
  const out = `${r.stdout}${r.stderr}`;
  assert.match(
    out,
    /Not sent: alltoall_py is a multi-GPU problem: its test cases need 8 GPUs \(world_size up to 8, one process a rank\), and CPU on the embedded runner gives a job one device\./,
  );
  assert.match(out, /`kernel-runner serve --gpu-name MI300x8`/);
  assert.ok(
    out.includes(`\`kernel-runner submit ${submission} --server http://127.0.0.1:8787 --gpu MI300x8 --mode test\``),
    out,
  );
  // nothing ran: no job was made, the evaluator never started
  assert.doesNotMatch(out, /job \d+:/);
  assert.doesNotMatch(out, /eval\.py: test on/);
  assert.doesNotMatch(out, /POPCORN_GPUS/);
});

test("a serve with one device: refused naming that runner; on the serve the message names, the example's tests pass", async () => {
  const r = await runCli(['submit', submission, '--server', single!.url, '--mode', 'test'], { cwd: work });
  assert.notEqual(r.code, 0);
  const out = `${r.stdout}${r.stderr}`;
  assert.match(out, new RegExp(`CPU on the runner at ${single!.url.replace(/[.]/g, '\\.')}/? gives a job one device`));
  assert.match(out, /then pass --gpu MI300x8\./);
  assert.doesNotMatch(out, /job \d+:/);

  const ok = await runCli(['submit', submission, '--server', eight!.url, '--gpu', 'MI300x8', '--mode', 'test'], {
    cwd: work,
  });
  assert.equal(ok.code, 0, `${ok.stdout}${ok.stderr}`);
  assert.match(ok.stdout, /^test: passed/m);
});
