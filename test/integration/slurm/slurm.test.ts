// The Slurm executor against a real one-node Slurm cluster (cluster.ts): the four modes of the example problem,
// profile mode with the rocprofv3 stand-in, cancel, timeout, a node set down mid-job, slurmctld stopped, the start
// check of the data dir, and a runner SIGKILLed with a job in flight. Without Slurm: skipped loudly, failed in CI.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import {
  EXTENSIONS_HEADER,
  healthSchema,
  expandOutput,
  outputEventSchema,
  resultEventSchema,
  runnerQueueSchema,
  type JobRecord,
} from '../../../src/core/protocol/api';
import { startRunner } from '../../../src/runner/index';
import { SLURM_SLOTS } from '../../../src/runner/executors/slurmInventory';
import { createSlurmExecutor } from '../../../src/runner/executors/slurm';
import { holdTimers } from '../../support/heldClock';
import {
  graceful,
  jobIdOf,
  post,
  problemsDir,
  readSse,
  repoRoot,
  solutions,
  startTestRunner,
  submitAndRead,
  tempDir,
  terminal,
  testBin,
  untilPrinted,
  waitFor,
  type SseEvent,
  type TestRunner,
} from '../runner/helpers';
import { slurmMissing, startSlurmCluster, type SlurmCluster } from './cluster';
import { counterRows, readZip } from '../runner/counterHelpers';
import { checkRankOutputs, checkSummaryCoversRanks } from '../runner/rankOutputs';
import { checkRanksEndToEnd } from '../runner/rankSummary';
import { PROCESS_MANIFEST_NAME, processManifestSchema } from '../../../src/core/protocol/processManifest';
import { rooflineCounters, splitIntoPasses } from '../../../src/runner/counterSets';
import { traceSummarySchema } from '../../../src/core/protocol/traceSummary';

const missing = slurmMissing();
if (missing) process.stderr.write(`\n*** Slurm tests SKIPPED: ${missing} ***\n\n`);

const correct = readFileSync(path.join(solutions, 'correct/map_add.py'), 'utf8');
/** The built CLI (`node scripts/build.mjs`; npm test builds first): it starts in a fraction of tsx's time. */
const cli = path.join(repoRoot, 'dist/cli.cjs');
const GPU = 'MI300'; // the test partition is called mi300

function slurmJobs(cluster: SlurmCluster, prefix: string): { id: number; name: string; state: string }[] {
  return cluster
    .slurm('squeue', ['-h', '--states=all', '-o', '%i|%j|%T'])
    .split('\n')
    .map((l) => l.trim().split('|'))
    .filter(([, name]) => name?.startsWith(prefix))
    .map(([id, name, state]) => ({ id: Number(id), name: name as string, state: state as string }));
}

async function runnerId(dataDir: string): Promise<string> {
  return readFileSync(path.join(dataDir, 'slurm', 'runner-id'), 'utf8').trim();
}

async function jobRecord(url: string, id: number): Promise<JobRecord> {
  return (await (await fetch(`${url}/jobs/${id}`)).json()) as JobRecord;
}

/** Submits with the extension header and reads until `stop` (or the end); returns the job id and events so far. */
async function submitUntil(
  url: string,
  fileName: string,
  content: string,
  stop: (ev: SseEvent) => boolean,
): Promise<{ id: number; events: SseEvent[] }> {
  const res = await post(url, { fileName, content, extensions: true });
  assert.equal(res.status, 200);
  const events = await readSse(res, (ev) => stop(ev));
  return { id: (events[0]?.data as { job_id: number }).job_id, events };
}

const startedLine = (ev: SseEvent) => ev.event === 'output' && (ev.data as { text: string }).text === 'started';
const lines = (events: SseEvent[]) =>
  events.filter((e) => e.event === 'output').flatMap((e) => expandOutput(outputEventSchema.parse(e.data)));

test('serve: the --slurm-* flags need --executor slurm, an unknown executor is refused, srun missing refuses the start (exit 2)', (t) => {
  const scratch = tempDir();
  t.after(() => rmSync(scratch, { recursive: true, force: true }));
  const serve = (args: string[], env: NodeJS.ProcessEnv = process.env) =>
    spawnSync(process.execPath, [cli, 'serve', '--port', '0', '--no-token', '--data-dir', scratch, ...args], {
      cwd: repoRoot,
      encoding: 'utf8',
      env,
    });
  const flags = serve(['--slurm-gres', 'gpu:1']);
  assert.equal(flags.status, 2);
  assert.match(flags.stderr, /the --slurm-\* flags need --executor slurm/);
  const kind = serve(['--executor', 'pbs']);
  assert.equal(kind.status, 2);
  assert.match(kind.stderr, /--executor takes local, slurm, not "pbs"/);
  const noSrun = serve(['--executor', 'slurm'], { ...process.env, PATH: scratch });
  assert.equal(noSrun.status, 2);
  assert.match(noSrun.stderr, /cannot use Slurm: Slurm: srun is not installed or not on PATH/);
});

describe(
  'Slurm executor',
  { skip: missing && process.env.CI !== 'true' ? `Slurm is not installed: ${missing}` : false },
  () => {
    let cluster: SlurmCluster;
    let runner: TestRunner;
    let env: NodeJS.ProcessEnv;
    let pwned = '';

    before(async () => {
      // run without Slurm only under CI=true: a failure there
      assert.ok(!missing, `CI=true but Slurm cannot be used here: ${missing} (.ci/run installs slurm-wlm and munge)`);
      cluster = await startSlurmCluster();
      pwned = path.join(cluster.root, 'pwned');
      env = {
        ...cluster.env,
        PATH: `${testBin}${path.delimiter}${cluster.env.PATH ?? ''}`,
        KR_FAKE_ROCPROF_NOISE: 'all',
      };
      runner = await startTestRunner({
        executor: 'slurm',
        // an extra srun argument with shell syntax in it: it must reach srun as one argument, never a shell
        slurm: { partition: cluster.partition, pollMs: 300, args: [`--comment=$(touch ${pwned})`] },
        env,
        profiler: 'auto',
        dataDir: path.join(cluster.root, 'data'),
      });
    });
    after(async () => {
      await runner?.dispose();
      const ranNothing = !pwned || !existsSync(pwned);
      await cluster?.stop();
      assert.ok(ranNothing, 'the --slurm-arg with $(...) ran nothing');
    });

    test('test mode: the run goes through Slurm under our job name, with live output and the POPCORN_FD result', async () => {
      assert.match(runner.info.executor, /^slurm \(srun, partition mi300/);
      const events = await submitAndRead(`${runner.url}/vectoradd_py/${GPU}/test`, {
        fileName: 'map_add.py',
        content: correct,
        extensions: true,
      });
      const id = (events[0]?.data as { job_id: number }).job_id;
      const run = resultEventSchema.parse(terminal(events).data).results[0]!.runs.test!.run!;
      assert.equal(run.passed, true);
      assert.equal(run.exit_code, 0);
      assert.equal(run.result['test-count'], '3');
      assert.ok(
        lines(events).some((o) => o.stream === 'stderr' && o.text === 'eval.py: seed default' && !o.noise),
        'live stderr line, classified',
      );
      const name = `kernel-runner-${await runnerId(runner.dataDir)}-${id}`;
      // kernelbot's compile step (python3 submission.py) and the test run: one Slurm job each, both completed (the
      // last one may still be COMPLETING for a moment: Slurm's clean-up after srun returned)
      const states = await waitFor('both Slurm jobs to be completed', () => {
        const s = slurmJobs(cluster, name).map((j) => j.state);
        return s.includes('COMPLETING') ? undefined : s;
      });
      assert.deepEqual(states, ['COMPLETED', 'COMPLETED']);
    });

    test('benchmark and leaderboard mode: results and scores as with the local executor', async () => {
      const bench = resultEventSchema.parse(
        terminal(
          await submitAndRead(`${runner.url}/vectoradd_py/${GPU}/benchmark`, {
            fileName: 'map_add.py',
            content: correct,
          }),
        ).data,
      );
      const b = bench.results[0]!.runs.benchmark!.run!;
      assert.equal(b.passed, true);
      assert.equal(b.result['benchmark-count'], '2');
      assert.ok(Number(b.result['benchmark.0.mean']) > 0);
      const lb = resultEventSchema.parse(
        terminal(
          await submitAndRead(`${runner.url}/vectoradd_py/${GPU}/leaderboard`, {
            fileName: 'map_add.py',
            content: correct,
          }),
        ).data,
      );
      assert.equal(lb.results.length, 2, 'public and secret run');
      assert.deepEqual(Object.keys(lb.results[0]!.runs).sort(), ['benchmark', 'leaderboard', 'test']);
      for (const full of lb.results) for (const ev of Object.values(full.runs)) assert.equal(ev.run?.passed, true);
    });

    test('profile mode: rocprofv3 (stand-in) runs on the node, its trace comes back summarised, noise marked live', async () => {
      assert.equal(runner.info.profiler?.kind, 'rocprofv3');
      const events = await submitAndRead(`${runner.url}/vectoradd_py/${GPU}/profile`, {
        fileName: 'map_add.py',
        content: correct,
        extensions: true,
      });
      const runs = resultEventSchema.parse(terminal(events).data).results[0]!.runs;
      assert.deepEqual(Object.keys(runs).sort(), ['profile.0', 'profile.1']);
      for (const ev of Object.values(runs)) {
        assert.equal(ev.run?.passed, true);
        assert.ok(ev.profile && ev.profile.trace.length > 0, 'inline trace zip');
        assert.ok(ev.profile.summary, 'trace summary');
      }
      const out = lines(events);
      assert.ok(
        out.some((o) => o.noise && (o.kind === 'glog' || o.kind === 'perfetto')),
        'profiler noise arrives marked',
      );
      assert.ok(out.some((o) => !o.noise && o.text === 'eval.py: seed default'));
    });

    test('profile mode with counters=roofline: the --pmc passes run on the node, every pass and sysinfo.csv come back', async () => {
      const form = new FormData();
      form.append('file', new Blob([new TextEncoder().encode(correct)]), 'map_add.py');
      form.append('counters', 'roofline');
      form.append('case', '0');
      form.append('kernel_regex', 'addition|subtract');
      const res = await fetch(`${runner.url}/vectoradd_py/${GPU}/profile`, {
        method: 'POST',
        body: form,
        headers: { [EXTENSIONS_HEADER]: '1' },
      });
      assert.equal(res.status, 200);
      const runs = resultEventSchema.parse(terminal(await readSse(res)).data).results[0]!.runs;
      assert.deepEqual(Object.keys(runs), ['profile.0']);
      const run = runs['profile.0']!.run!;
      assert.equal(run.passed, true, run.stderr);
      // no rocminfo on this node: the arch comes from the GPU's name (MI300: gfx942), the passes are gfx942's
      const passes = splitIntoPasses(rooflineCounters('gfx942'));
      assert.ok(run.command.includes(passes.map((g) => `--pmc ${g.join(' ')}`).join(' ')), run.command);
      const zip = await readZip(Buffer.from(runs['profile.0']!.profile!.trace, 'base64'));
      for (const [i, group] of passes.entries()) {
        const name = [...zip.keys()].find(
          (n) => n.startsWith(`pass_${i + 1}/`) && n.endsWith('_counter_collection.csv'),
        );
        assert.ok(name, `pass_${i + 1} in ${[...zip.keys()].join(', ')}`);
        assert.deepEqual(
          [...new Set(counterRows(zip.get(name)!.toString('utf8')).map((r) => r.counter))].sort(),
          [...group].sort(),
        );
      }
      const [, row] = zip.get('sysinfo.csv')!.toString('utf8').trim().split('\n') as [string, string];
      assert.match(
        row,
        /^,+unknown: rocminfo: not found; amd-smi: not found$/,
        'no GPU tools on the node: every value unknown, said so',
      );
    });

    test('profile mode with PC sampling: the switches reach rocprofv3 on the node, the samples and hot spots come back', async () => {
      const form = new FormData();
      form.append('file', new Blob([new TextEncoder().encode(correct)]), 'map_add.py');
      form.append('pc_sampling', 'stochastic');
      form.append('pc_sampling_interval', '65536');
      form.append('case', '0');
      const res = await fetch(`${runner.url}/vectoradd_py/${GPU}/profile`, {
        method: 'POST',
        body: form,
        headers: { [EXTENSIONS_HEADER]: '1' },
      });
      assert.equal(res.status, 200);
      const runs = resultEventSchema.parse(terminal(await readSse(res)).data).results[0]!.runs;
      assert.deepEqual(Object.keys(runs), ['profile.0']);
      const run = runs['profile.0']!.run!;
      assert.equal(run.passed, true, run.stderr);
      assert.match(
        run.command,
        /--pc-sampling-beta-enabled --pc-sampling-method stochastic --pc-sampling-unit cycles --pc-sampling-interval 65536 --output-format/,
      );
      const profile = runs['profile.0']!.profile!;
      const hot = traceSummarySchema.parse(profile.summary).hotspots;
      // the stand-in replays rocprofiler-sdk's recorded stochastic samples (97, see their PROVENANCE.md)
      assert.equal(hot?.samples, 97);
      assert.equal(hot?.interval, 65536);
      assert.equal(hot?.intervalUnit, 'cycles');
      const zip = await readZip(Buffer.from(profile.trace, 'base64'));
      assert.ok(
        [...zip.keys()].some((n) => n.endsWith('_pc_sampling_stochastic.csv')),
        [...zip.keys()].join(', '),
      );
    });

    test('profile on MI300x8 through Slurm: every rank process of the multi-process example traced apart, named in the manifest, read per rank', async () => {
      // a second runner on the same cluster serving the partition as MI300x8 (Slurm assigns the devices: the name
      // says how many, POPCORN_GPUS=8); the node has no GPUs, so the stand-in is told the machine has eight
      const x8 = await startTestRunner({
        executor: 'slurm',
        slurm: { partition: cluster.partition, pollMs: 300 },
        gpuName: 'MI300x8',
        env: { ...env, KR_FAKE_ROCPROF_GPUS: '8', KR_FAKE_ROCPROF_NOISE: 'none' },
        profiler: 'auto',
        rocpd: true,
        dataDir: path.join(cluster.root, 'data-x8'),
      });
      try {
        const events = await submitAndRead(`${x8.url}/alltoall_py/MI300x8/profile`, {
          fileName: 'submission.py',
          content: readFileSync(path.join(problemsDir, 'distributed/alltoall_py/submission.py'), 'utf8'),
          extensions: true,
        });
        const run = resultEventSchema.parse(terminal(events).data).results[0]!.runs['profile.0']!;
        assert.equal(run.run!.passed, true, run.run!.stderr);
        const zip = await readZip(Buffer.from(run.profile!.trace, 'base64'));
        const manifest = processManifestSchema.parse(JSON.parse(zip.get(PROCESS_MANIFEST_NAME)!.toString('utf8')));
        checkRankOutputs(manifest, (name) => zip.get(name)?.toString('utf8'), 8);
        checkSummaryCoversRanks(run.profile!.summary, manifest, (name) => zip.get(name)?.toString('utf8'));
        await checkRanksEndToEnd(Buffer.from(run.profile!.trace, 'base64'), manifest, 8);
      } finally {
        await x8.dispose();
      }
    });

    test('/runner_queue and /health come from Slurm', async () => {
      // the previous test's job may still be completing on the node: Slurm (and so the runner) counts it busy until then
      await waitFor('the node to be idle', () =>
        /^idle$/m.test(cluster.slurm('sinfo', ['-h', '-o', '%t'])) ? true : undefined,
      );
      // the runner asks Slurm every pollMs: its answer follows within one poll
      const queue = await waitFor('the runner to count the idle node', async () => {
        const q = runnerQueueSchema.parse(await (await fetch(`${runner.url}/runner_queue/${GPU}`)).json());
        return q.available_runners === 1 ? q : undefined;
      });
      assert.equal(queue.status, 'available');
      assert.equal(queue.available_runners, 1, 'the idle node');
      assert.notEqual(queue.available_runners, SLURM_SLOTS);
      const health = healthSchema.parse(await (await fetch(`${runner.url}/health`)).json());
      assert.equal(health.executor?.kind, 'slurm');
      assert.equal(health.executor?.available, true);
    });

    test('cancel: scancel --signal=INT reaches the program, the Slurm job ends, the job is cancelled', async () => {
      const { id, events } = await submitUntil(
        `${runner.url}/script/${GPU}/test`,
        'graceful.py',
        graceful,
        (ev) => ev.event === 'output' && (ev.data as { text: string }).text === 'working',
      );
      const name = `kernel-runner-${await runnerId(runner.dataDir)}-${id}`;
      assert.deepEqual(
        slurmJobs(cluster, name).map((j) => j.state),
        ['RUNNING'],
      );
      const res = await fetch(`${runner.url}/jobs/${id}`, { method: 'DELETE' });
      assert.equal(((await res.json()) as { state: string }).state, 'cancelled');
      const rest = await readSse(await fetch(`${runner.url}/jobs/${id}/events?after=${events.length}`));
      assert.ok(
        lines([...events, ...rest]).some((o) => o.text === 'got SIGINT, writing files'),
        'SIGINT first',
      );
      await waitFor('the Slurm job to end', () =>
        slurmJobs(cluster, name).every((j) => !/RUNNING|PENDING|COMPLETING/.test(j.state)) ? true : undefined,
      );
    });

    test("a node set down mid-job ends the run as failed, with Slurm's state and the node's reason", async () => {
      const { id } = await submitUntil(
        `${runner.url}/script/${GPU}/test`,
        'long.py',
        'import time\nprint("started", flush=True)\ntime.sleep(60)\n',
        startedLine,
      );
      try {
        cluster.slurm('scontrol', ['update', `nodename=${cluster.node}`, 'state=down', 'reason=kr-test-node-down']);
        const events = await readSse(await fetch(`${runner.url}/jobs/${id}/events`));
        const result = resultEventSchema.parse(terminal(events).data);
        const run = result.results[0]!.runs.test!.run!;
        assert.equal(run.success, false);
        assert.equal(run.passed, false);
        assert.match(
          run.stderr,
          new RegExp(`\\[kernel-runner\\] Slurm job \\d+ on ${cluster.node} ended NODE_FAIL \\(NodeDown\\)`),
        );
        assert.equal((await jobRecord(runner.url, id)).state, 'failed');
      } finally {
        // ReturnToService=2 may have brought it back already (then `resume` is refused)
        if (/down/.test(cluster.slurm('sinfo', ['-h', '-n', cluster.node, '-o', '%T']))) {
          try {
            cluster.slurm('scontrol', ['update', `nodename=${cluster.node}`, 'state=resume']);
          } catch {
            // it came back between sinfo and scontrol (else the wait below says the node stayed down)
          }
        }
        await waitFor('the node to be idle again', () =>
          /^idle$/m.test(cluster.slurm('sinfo', ['-h', '-o', '%t'])) ? true : undefined,
        );
      }
    });

    test('timeout: SIGINT first through Slurm, exit 114, the Slurm job is gone', async () => {
      // the timeout is the test's to fire once the program runs on the node; the program ends the grace period itself
      const clock = holdTimers();
      const short = await startTestRunner({
        executor: 'slurm',
        slurm: { partition: cluster.partition, pollMs: 300, skipCheck: true },
        env,
        scriptTimeoutSec: clock.seconds,
        killGraceMs: 60_000,
        dataDir: path.join(cluster.root, 'data-timeout'),
      });
      try {
        const reading = readSse(
          await post(`${short.url}/script/${GPU}/test`, {
            fileName: 'graceful.py',
            content: graceful,
            extensions: true,
          }),
        );
        await untilPrinted(short.url, await jobIdOf(short.url, 'graceful.py'), 'working');
        // the run's timeout is set once the runner sees the job start on the node, which may come after the line
        await waitFor("the run's timeout to be set", () => (clock.pending() > 0 ? true : undefined));
        assert.equal(clock.fire(), 1, 'the run timed out now');
        const events = await reading;
        const run = resultEventSchema.parse(terminal(events).data).results[0]!.runs.test!.run!;
        assert.equal(run.exit_code, 114);
        assert.match(
          run.stderr,
          new RegExp(`timed out after ${clock.seconds} s: sent SIGINT to Slurm job kernel-runner-`),
        );
        assert.match(run.stdout, /got SIGINT, writing files/);
        const prefix = `kernel-runner-${await runnerId(short.dataDir)}-`;
        assert.ok(slurmJobs(cluster, prefix).every((j) => !/RUNNING|PENDING/.test(j.state)));
      } finally {
        clock.release();
        await short.dispose();
      }
    });

    test(
      "Slurm's own time limit (here a --slurm-arg's, shorter than the run's timeout) ends the run as failed, with Slurm's reason",
      { timeout: 180_000 },
      async () => {
        const limited = await startTestRunner({
          executor: 'slurm',
          slurm: { partition: cluster.partition, pollMs: 300, skipCheck: true, args: ['--time=1'] },
          env,
          scriptTimeoutSec: 600,
          dataDir: path.join(cluster.root, 'data-slurm-limit'),
        });
        try {
          const { id, events: first } = await submitUntil(
            `${limited.url}/script/${GPU}/test`,
            'sleepy.py',
            'import time\nprint("started", flush=True)\ntime.sleep(400)\n',
            startedLine,
          );
          const name = `kernel-runner-${await runnerId(limited.dataDir)}-${id}`;
          const [job] = cluster
            .slurm('squeue', ['-h', `--name=${name}`, '-o', '%i|%l'])
            .trim()
            .split('\n')
            .map((l) => l.split('|'));
          assert.equal(job?.[1], '1:00', 'the --slurm-arg came after ours: Slurm took its one-minute limit');
          // Slurm counts limits in whole minutes and checks them every 30 s: the test brings the limit's end to now
          // (as an operator may), so that Slurm's next check ends the job instead of one to two minutes from now
          for (let ahead = 1; ; ahead *= 2) {
            try {
              cluster.slurm('scontrol', ['update', `jobid=${job![0]}`, `EndTime=now+${ahead}`]);
              break;
            } catch (err) {
              // slurmctld took the request only after that moment (a busy machine): a later one
              if (ahead >= 64) throw err;
            }
          }
          const events = [
            ...first,
            ...(await readSse(await fetch(`${limited.url}/jobs/${id}/events?after=${first.length}`))),
          ];
          const result = resultEventSchema.parse(terminal(events).data);
          const run = result.results[0]!.runs.test!.run!;
          assert.ok(
            lines(events).some((o) => o.text === 'started'),
            'it ran',
          );
          assert.equal(run.passed, false);
          assert.match(
            run.stderr,
            /\[kernel-runner\] Slurm job \d+ on \S+ ended TIMEOUT.*Slurm's time limit of \S+ was reached/,
          );
          assert.doesNotMatch(run.stderr, /timed out after 600 s/, 'not our own timeout');
          assert.equal((await jobRecord(limited.url, id)).state, 'failed');
          const prefix = `kernel-runner-${await runnerId(limited.dataDir)}-`;
          assert.ok(
            slurmJobs(cluster, prefix).every((j) => !/RUNNING|PENDING/.test(j.state)),
            'nothing of it left in Slurm',
          );
        } finally {
          await limited.dispose();
        }
      },
    );

    test('queue positions come from squeue: a run behind two others on the 2-CPU node is 1st in line, then runs', async () => {
      const executor = await createSlurmExecutor({
        partition: cluster.partition,
        pollMs: 200,
        skipCheck: true,
        dataDir: path.join(cluster.root, 'data-queue'),
        env,
        python: 'python3',
        log: () => undefined,
      });
      const stops = [new AbortController(), new AbortController(), new AbortController()];
      const positions: number[] = [];
      const dir = path.join(cluster.root, 'queue-work');
      mkdirSync(dir);
      const spec = (i: number) => ({
        jobId: 900 + i,
        command: 'python3',
        args: ['-c', 'import time; print("up", flush=True); time.sleep(60)'],
        cwd: dir,
        env,
        timeoutMs: 60_000,
        graceMs: 500,
        capBytes: 4096,
        signal: stops[i]!.signal,
      });
      try {
        const seen = [0, 1].map(() => ({ up: false }));
        const first = [0, 1].map((i) =>
          executor.run({ ...spec(i), onLine: (_s, l) => void (l.text === 'up' && (seen[i]!.up = true)) }),
        );
        await waitFor('two runs to occupy the node', () => (seen.every((x) => x.up) ? true : undefined));
        const third = executor.run({ ...spec(2), onQueuePosition: (p) => positions.push(p) });
        await waitFor('the third run to be 1st in line', () => (positions.includes(1) ? true : undefined));
        assert.ok((executor.queueCounts(GPU)?.queued ?? 0) >= 1, 'squeue counts it as queued');
        assert.equal(executor.queueCounts(GPU)?.running, 2);
        stops[0]!.abort();
        await waitFor('the third run to start', () => (positions.at(-1) === 0 ? true : undefined));
        assert.deepEqual(positions, [1, 0]);
        stops[1]!.abort();
        stops[2]!.abort();
        const outcomes = await Promise.all([...first, third]);
        assert.ok(outcomes.every((o) => o.cancelled));
      } finally {
        for (const s of stops) s.abort();
        await executor.close();
      }
    });

    test('the start refuses a data dir the nodes cannot see, naming it; --slurm-skip-check starts anyway', async () => {
      const hidden = path.join(cluster.hiddenDir, 'data');
      mkdirSync(hidden, { recursive: true });
      await assert.rejects(
        startRunner({ port: 0, executor: 'slurm', slurm: { partition: cluster.partition }, env, dataDir: hidden }),
        (err: Error) =>
          err.message.includes(`Slurm's nodes cannot see the data dir ${hidden}`) &&
          err.message.includes('--slurm-skip-check'),
      );
      const skipped = await startTestRunner({
        executor: 'slurm',
        slurm: { partition: cluster.partition, skipCheck: true },
        env,
        dataDir: hidden,
      });
      await skipped.dispose();
    });

    test('slurmctld stopped: /health says Slurm is unavailable, a submission ends with an error naming Slurm and srun', async () => {
      await cluster.stopController();
      try {
        await waitFor('health to say unavailable', async () => {
          const h = healthSchema.parse(await (await fetch(`${runner.url}/health`)).json());
          return h.executor?.available === false ? h : undefined;
        });
        const h = healthSchema.parse(await (await fetch(`${runner.url}/health`)).json());
        assert.match(h.executor?.detail ?? '', /^Slurm: `(sinfo|squeue) .*` failed.*slurm controller/i);
        const queue = runnerQueueSchema.parse(await (await fetch(`${runner.url}/runner_queue/${GPU}`)).json());
        assert.equal(queue.status, 'unavailable');
        const events = await submitAndRead(`${runner.url}/script/${GPU}/test`, {
          fileName: 'hello.py',
          content: 'print("hello")\n',
        });
        const run = resultEventSchema.parse(terminal(events).data).results[0]!.runs.test!.run!;
        assert.equal(run.passed, false);
        assert.equal(run.exit_code, 127);
        assert.match(
          run.stderr,
          /could not start: Slurm: `srun --job-name=kernel-runner-.*` failed: .*(controller|allocate)/i,
        );
        assert.doesNotMatch(run.stdout, /hello/);
      } finally {
        await cluster.startController();
      }
      await waitFor('health to recover', async () =>
        healthSchema.parse(await (await fetch(`${runner.url}/health`)).json()).executor?.available ? true : undefined,
      );
    });

    test('serve --executor slurm says where jobs run and how they are kept together; /health names the executor', async () => {
      const dataDir = path.join(cluster.root, 'data-cli');
      const server = spawn(
        process.execPath,
        [
          cli,
          'serve',
          '--port',
          '0',
          '--no-token',
          '--data-dir',
          dataDir,
          '--profiler',
          'none',
          '--executor',
          'slurm',
          '--slurm-partition',
          cluster.partition,
          '--slurm-arg=--comment=kr-cli',
        ],
        {
          cwd: repoRoot,
          env,
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      try {
        // the start-up lines end with auth: (after the check job ran on the node)
        const out = await new Promise<string>((resolve, reject) => {
          let text = '';
          server.stdout.on('data', (d: Buffer) => {
            text += d.toString();
            if (text.includes('auth:')) resolve(text);
          });
          server.once('exit', (code) => reject(new Error(`serve exited (${code}) before its start-up lines: ${text}`)));
        });
        assert.match(out, /GPUs: +MI300/);
        assert.match(out, /executor: +slurm \(srun, partition mi300; job names kernel-runner-[0-9a-f]{8}-<job id>\)/);
        assert.match(out, /isolation: +Slurm's process tracking/);
        const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
        const health = healthSchema.parse(await (await fetch(`${url}/health`)).json());
        assert.deepEqual(
          { kind: health.executor?.kind, available: health.executor?.available },
          { kind: 'slurm', available: true },
        );
      } finally {
        server.kill('SIGTERM');
        await new Promise((r) => server.once('exit', r));
      }
    });

    test('a runner SIGKILLed with a job in flight: the next start cancels its Slurm job and reports it interrupted', async () => {
      const dataDir = path.join(cluster.root, 'data-restart');
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', path.join(repoRoot, 'test/integration/slurm/runnerProcess.ts')],
        {
          cwd: repoRoot,
          env: {
            ...env,
            KR_RUNNER_OPTIONS: JSON.stringify({
              executor: 'slurm',
              slurm: { partition: cluster.partition, skipCheck: true },
              dataDir,
              token: '',
              heartbeatMs: 200,
            }),
          },
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      try {
        const url = await new Promise<string>((resolve, reject) => {
          let out = '';
          child.stdout.on('data', (d: Buffer) => {
            out += d.toString();
            if (out.includes('\n')) resolve(out.trim());
          });
          child.once('exit', (code) => reject(new Error(`runner process exited ${code}`)));
        });
        const { id } = await submitUntil(
          `${url}/script/${GPU}/test`,
          'long.py',
          'import time\nprint("started", flush=True)\ntime.sleep(60)\n',
          startedLine,
        );
        const name = `kernel-runner-${await runnerId(dataDir)}-${id}`;
        assert.deepEqual(
          slurmJobs(cluster, name).map((j) => j.state),
          ['RUNNING'],
        );
        child.kill('SIGKILL');
        await new Promise((r) => child.once('exit', r));
        assert.deepEqual(
          slurmJobs(cluster, name).map((j) => j.state),
          ['RUNNING'],
          'still running, unknown to any runner',
        );
        const logs: string[] = [];
        const again = await startTestRunner({
          executor: 'slurm',
          slurm: { partition: cluster.partition, skipCheck: true },
          env,
          dataDir,
          log: (l) => logs.push(l),
        });
        try {
          assert.ok(
            logs.some(
              (l) =>
                l.includes('cancelled 1 Slurm job(s) a previous start of this runner left behind') && l.includes(name),
            ),
            logs.join('\n'),
          );
          assert.equal((await jobRecord(again.url, id)).state, 'interrupted');
          await waitFor('the Slurm job to be cancelled', () =>
            slurmJobs(cluster, name).every((j) => j.state === 'CANCELLED') ? true : undefined,
          );
        } finally {
          await again.dispose();
        }
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    });
  },
);
