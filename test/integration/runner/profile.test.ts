// Profile mode through the clearly named stand-in `test/bin/rocprofv3` (PATH prefixed), as on an MI300 runner.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { zipEntries } from '../../support/zipEntries';
import { expandOutput, outputEventSchema, resultEventSchema, type ProfileResult } from '../../../src/core/protocol/api';
import { traceSummarySchema } from '../../../src/core/protocol/traceSummary';
import { holdTimers } from '../../support/heldClock';
import {
  jobIdOf,
  post,
  readSse,
  solutions,
  startTestRunner,
  submitAndRead,
  terminal,
  testBin,
  untilPrinted,
  type TestRunner,
} from './helpers';
import { GPU_AGENT, expectedRun } from './standInTimeline';

const correct = readFileSync(path.join(solutions, 'correct/map_add.py'), 'utf8');
const haveCompiler = ['gcc', 'cc'].some((cc) => spawnSync(cc, ['--version'], { stdio: 'ignore' }).status === 0);
if (!haveCompiler)
  console.error(
    'profile.test.ts: no C compiler, so the stand-in records no rocTX ranges and kernels per case are NOT checked here',
  );
const env = {
  ...process.env,
  PATH: `${testBin}${path.delimiter}${process.env.PATH ?? ''}`,
  KR_FAKE_ROCPROF_NOISE: 'all',
};

describe('profile mode under rocprofv3 (test stand-in)', () => {
  let runner: TestRunner;
  before(async () => {
    runner = await startTestRunner({ profiler: 'auto', env });
    assert.equal(runner.info.profiler?.kind, 'rocprofv3');
  });
  after(() => runner.dispose());

  test('each benchmark case is profiled on its own: zip inline + download link + summary; noise marked live', async (t) => {
    const events = await submitAndRead(`${runner.url}/vectoradd_py/CPU/profile`, {
      fileName: 'map_add.py',
      content: correct,
      extensions: true,
    });
    const result = resultEventSchema.parse(terminal(events).data);
    const runs = result.results[0]!.runs;
    assert.deepEqual(Object.keys(runs), ['profile.0', 'profile.1']);
    for (const [key, ev] of Object.entries(runs)) {
      const run = ev.run!;
      assert.equal(run.passed, true, run.stderr);
      assert.match(
        run.command,
        /rocprofv3 --log-level fatal --hip-trace --kernel-trace --rccl-trace --marker-trace --memory-copy-trace --scratch-memory-trace --output-format pftrace csv -d \S+ -o %pid% -- python3 eval\.py profile /,
      );
      assert.ok(run.result['benchmark.0.report'], 'the evaluator report came through POPCORN_FD');
      assert.doesNotMatch(run.stderr, /perfetto\.cc|simple_timer\.cpp/, 'noise is not in the result stderr');
      assert.match(run.stderr, /profiler log line\(s\) left out/);
      const profile = ev.profile as ProfileResult;
      assert.equal(profile.profiler, 'rocPROF');
      assert.equal(profile.artifact, `job-${(events[0]!.data as { job_id: number }).job_id}-${key}.zip`);
      assert.equal(
        profile.download_url,
        `${runner.url}/jobs/${(events[0]!.data as { job_id: number }).job_id}/artifacts/${profile.artifact}`,
      );
      const summary = traceSummarySchema.parse(profile.summary);
      assert.ok(summary.kernels.length > 0);
      // one clock: a realistic busy share and a timeline, figures as the stand-in's rebasing rule gives them
      const expected = expectedRun(0);
      assert.equal(summary.wall?.spanNs, expected.wallSpanNs);
      const gpu = summary.agents.find((a) => a.id === GPU_AGENT);
      assert.ok(gpu, `agents: ${summary.agents.map((a) => a.id).join(', ')}`);
      assert.equal(gpu.type, 'GPU', 'the kernels ran on a GPU listed in agent_info');
      assert.equal(gpu.productName, 'AMD Instinct MI300X');
      assert.deepEqual(
        [gpu.kernelCalls, gpu.kernelNs, gpu.copyNs, gpu.busyNs],
        [expected.kernels.length, expected.kernelNs, expected.copyNs, expected.busyNs],
      );
      assert.ok(gpu.busyNs <= summary.wall!.spanNs);
      assert.ok(gpu.busyPercent! > 0 && gpu.busyPercent! <= 100, `busy ${gpu.busyPercent}%`);
      assert.deepEqual(
        summary.agents.filter((a) => a.kernelCalls > 0 || a.copyNs > 0).map((a) => a.id),
        [GPU_AGENT],
        'no work on agents missing from agent_info',
      );
      const lane = summary.timeline?.agents.find((a) => a.agentId === GPU_AGENT);
      assert.ok(lane && lane.busyFraction.some((f) => f > 0), 'a non-empty timeline');
      assert.deepEqual(
        new Map(summary.kernels.map((k) => [k.name, { calls: k.calls, totalNs: k.totalNs }])),
        expected.perKernel,
        'per-kernel totals are the recorded ones',
      );
      // eval.py opened a rocTX range for its one case (through the stand-in's recording libroctx64, built with the
      // C compiler); every replayed dispatch was launched inside it
      await t.test(
        `${key}: the case's rocTX range holds every kernel`,
        { skip: haveCompiler ? false : 'no C compiler: the stand-in records no rocTX ranges' },
        () => {
          const spec = run.result['benchmark.0.spec'];
          assert.deepEqual(
            summary.markers.map((m) => m.name),
            [`benchmark 0: ${spec}`],
          );
          assert.equal(summary.markers[0]?.kernelAttribution, 'correlation');
          assert.deepEqual(
            new Map(summary.markers[0]?.kernels.map((k) => [k.name, { calls: k.calls, totalNs: k.totalNs }])),
            expected.perKernel,
            'the case holds every kernel',
          );
        },
      );

      const download = await fetch(profile.download_url!);
      assert.equal(download.status, 200);
      assert.equal(download.headers.get('content-type'), 'application/zip');
      assert.match(
        download.headers.get('content-disposition') ?? '',
        new RegExp(`attachment; filename="${profile.artifact!.replace(/\./g, '\\.')}"`),
      );
      const bytes = Buffer.from(await download.arrayBuffer());
      assert.equal(Number(download.headers.get('content-length')), bytes.length);
      assert.deepEqual(bytes, Buffer.from(profile.trace, 'base64'), 'inline trace = downloadable zip');
      const names = await zipEntries(bytes);
      assert.ok(names.includes('combined.pftrace'));
      assert.ok(names.includes('stderr.log'));
      assert.ok(names.some((n) => n.endsWith('_kernel_trace.csv')));
      assert.ok(!names.some((n) => n.includes('.rocprofv3')), 'rocprofv3 scratch folder left out');
      assert.ok(!names.some((n) => /\d+_results\.pftrace$/.test(n)), 'per-process pftrace files were concatenated');
    }
    const out = events
      .filter((e) => e.event === 'output')
      .flatMap((e) => expandOutput(outputEventSchema.parse(e.data)));
    assert.ok(
      out.some((o) => o.noise && (o.kind === 'glog' || o.kind === 'perfetto')),
      'profiler noise arrives marked',
    );
    assert.ok(
      out.some((o) => !o.noise && o.text === 'eval.py: seed default'),
      'program stderr arrives unmarked',
    );
  });

  test('a plain client gets the upstream ProfileResult fields only', async () => {
    const events = await submitAndRead(`${runner.url}/vectoradd_py/CPU/profile`, {
      fileName: 'map_add.py',
      content: correct,
    });
    const result = resultEventSchema.parse(terminal(events).data);
    const profile = result.results[0]!.runs['profile.0']!.profile!;
    assert.deepEqual(Object.keys(profile).sort(), ['download_url', 'profiler', 'trace']);
    assert.ok(profile.trace.length > 0);
  });

  test('script leaderboard profile: the program itself under the profiler, key profile.0', async () => {
    const events = await submitAndRead(`${runner.url}/script/CPU/profile`, {
      fileName: 'hello.py',
      content: 'print("profiled hello")\n',
      extensions: true,
    });
    const runs = resultEventSchema.parse(terminal(events).data).results[0]!.runs;
    assert.deepEqual(Object.keys(runs), ['profile.0']);
    assert.equal(runs['profile.0']!.run!.stdout, 'profiled hello\n');
    assert.ok(runs['profile.0']!.profile!.trace.length > 0);
  });
});

describe('profile archives over the inline limit', () => {
  let runner: TestRunner;
  before(async () => {
    runner = await startTestRunner({ profiler: 'rocprofv3', env, inlineTraceBytes: 100 });
  });
  after(() => runner.dispose());

  test('trace is empty and the link downloads the archive', async () => {
    const events = await submitAndRead(`${runner.url}/script/CPU/profile`, { fileName: 'p.py', content: 'print(1)\n' });
    const ev = resultEventSchema.parse(terminal(events).data).results[0]!.runs['profile.0']!;
    assert.equal(ev.profile!.trace, '');
    assert.match(ev.run!.stderr, /over the inline limit/);
    const download = await fetch(ev.profile!.download_url!);
    assert.equal(download.status, 200);
    assert.ok((await zipEntries(Buffer.from(await download.arrayBuffer()))).includes('combined.pftrace'));
  });
});

describe('profile run that times out', () => {
  // the timeout is the test's to fire once the program runs; the profiler ends the grace period itself once its
  // files are written: all the time a loaded machine needs for either
  const clock = holdTimers();
  let runner: TestRunner;
  before(async () => {
    runner = await startTestRunner({
      profiler: 'rocprofv3',
      env,
      scriptTimeoutSec: clock.seconds,
      killGraceMs: 120_000,
    });
  });
  after(async () => {
    clock.release();
    await runner.dispose();
  });

  test('SIGINT first: the profiler writes its files within the grace period; no ProfileResult (as upstream), the trace is kept for download', async () => {
    const reading = readSse(
      await post(`${runner.url}/script/CPU/profile`, {
        fileName: 'slow.py',
        content: 'import time\nprint("working", flush=True)\ntime.sleep(600)\n',
        extensions: true,
      }),
    );
    await untilPrinted(runner.url, await jobIdOf(runner.url, 'slow.py'), 'working');
    assert.equal(clock.fire(), 1, 'the job timed out now');
    const events = await reading;
    const ev = resultEventSchema.parse(terminal(events).data).results[0]!.runs['profile.0']!;
    assert.equal(ev.run!.exit_code, 114);
    assert.equal(ev.run!.success, false);
    assert.match(ev.run!.stderr, new RegExp(`timed out after ${clock.seconds} s: sent SIGINT to the process group`));
    // upstream attaches a ProfileResult to a run that succeeded only
    assert.equal(ev.profile, null);
    const link = /no ProfileResult \(as upstream\); what the profiler wrote is at (\S+)/.exec(ev.run!.stderr);
    assert.ok(link, ev.run!.stderr);
    const download = await fetch(link[1]!);
    assert.equal(download.status, 200);
    const names = await zipEntries(Buffer.from(await download.arrayBuffer()));
    assert.ok(
      names.some((n) => n.endsWith('_kernel_trace.csv')),
      names.join(', '),
    );
    const stderrLog = events
      .filter((e) => e.event === 'output')
      .flatMap((e) => expandOutput(outputEventSchema.parse(e.data)));
    assert.ok(
      stderrLog.some((o) => o.noise && /caught signal 2/.test(o.text)),
      "the profiler's signal handler lines arrive as noise",
    );
  });
});
