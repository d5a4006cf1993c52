// What a Slurm job on a node sees of the runner (real one-node cluster, cluster.ts): the runner's variables
// ($KERNEL_RUNNER_TOKEN, secrets) do not reach it through srun's environment, and no file of the data dir it can
// read holds the token. It does see the data dir (the shared filesystem is how runs reach the nodes: docs/runner.md,
// "On a Slurm cluster"), so serve says at start when its stored token is kept there.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { resultEventSchema } from '../../../src/core/protocol/api';
import { repoRoot, startTestRunner, submitAndRead, terminal, type TestRunner } from '../runner/helpers';
import { slurmMissing, startSlurmCluster, type SlurmCluster } from './cluster';

const missing = slurmMissing();

describe(
  "a Slurm job and the runner's secrets",
  { skip: missing && process.env.CI !== 'true' ? `Slurm is not installed: ${missing}` : false },
  () => {
    let cluster: SlurmCluster;
    let runner: TestRunner;
    const token = randomBytes(24).toString('base64url');
    const auth = { Authorization: `Bearer ${token}` };

    before(async () => {
      if (missing)
        assert.fail(`CI=true but Slurm cannot be used here: ${missing} (.ci/run installs slurm-wlm and munge)`);
      cluster = await startSlurmCluster();
      runner = await startTestRunner({
        executor: 'slurm',
        slurm: { partition: cluster.partition, pollMs: 300 },
        token,
        env: { ...cluster.env, KERNEL_RUNNER_TOKEN: token, DEPLOY_SECRET: token },
        dataDir: path.join(cluster.root, 'data'),
      });
    });
    after(async () => {
      await runner?.dispose();
      await cluster?.stop();
    });

    test("the job on the node gets none of the runner's variables, and finds the token in no file of the data dir", async () => {
      const code = `
import os
data = ${JSON.stringify(path.join(cluster.root, 'data'))}
# reversed: the submission itself (kept in the data dir) must not hold the token it looks for
token = ${JSON.stringify([...token].reverse().join(''))}[::-1]
print("ENV", sorted(k for k, v in os.environ.items() if token in v or k.startswith("KERNEL_RUNNER_") or "SECRET" in k or "TOKEN" in k))
print("SLURM", "SLURM_JOB_ID" in os.environ)
holding = []
seen = 0
for top, dirs, files in os.walk(data):
    for f in files:
        try:
            seen += 1
            if token.encode() in open(os.path.join(top, f), "rb").read():
                holding.append(os.path.relpath(os.path.join(top, f), data))
        except OSError:
            pass
print("READ", seen, "HOLDING", holding)
`;
      const events = await submitAndRead(`${runner.url}/script/MI300/test`, {
        fileName: 'look.py',
        content: code,
        headers: auth,
      });
      const run = resultEventSchema.parse(terminal(events).data).results[0]!.runs.test!.run!;
      assert.equal(run.exit_code, 0, run.stderr);
      assert.match(run.stdout, /^SLURM True$/m, 'it ran as a Slurm job');
      assert.match(run.stdout, /^ENV \[\]$/m, run.stdout);
      const read = /^READ (\d+) HOLDING (.*)$/m.exec(run.stdout);
      assert.ok(read, run.stdout);
      assert.ok(Number(read[1]) > 0, 'the job did read the data dir (it is shared with the nodes)');
      assert.equal(read[2], '[]', 'no file it could read holds the token');
    });

    test('serve with --executor slurm and the token stored in the data dir says that Slurm jobs can read it', async () => {
      const dataDir = path.join(cluster.root, 'data-serve');
      const serve = spawn(
        process.execPath,
        [
          path.join(repoRoot, 'dist/cli.cjs'),
          'serve',
          '--port',
          '0',
          '--executor',
          'slurm',
          '--slurm-skip-check',
          '--slurm-partition',
          cluster.partition,
          '--data-dir',
          dataDir,
        ],
        {
          cwd: repoRoot,
          env: { ...cluster.env, KERNEL_RUNNER_TOKEN: '' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      try {
        const warning = await new Promise<string>((resolve, reject) => {
          let text = '';
          serve.stderr.on('data', (chunk: Buffer) => {
            text += chunk.toString();
            const line = text.split('\n').find((l) => /Slurm jobs run as this user/.test(l));
            if (line) resolve(line);
          });
          serve.on('exit', (code) => reject(new Error(`serve exited (${code}) without the warning: ${text}`)));
        });
        assert.match(
          warning,
          /see the data dir over the shared filesystem, .*data-serve\/token included: keep the token outside it \(--token-file PATH/,
        );
      } finally {
        serve.kill('SIGKILL');
      }
    });
  },
);
