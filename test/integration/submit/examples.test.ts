// The example problem's evaluator and the test stand-in rocprofv3, run as real processes (python3 only).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { decodePopcornBase64 } from '../../../src/core/reportEncoding';
import { problems, repoRoot, tempDir, vectoradd } from './helpers';
import { GAP_NS, GPU_AGENT, expectedRun, fixture, readCsv, shiftTo, type Row } from '../runner/standInTimeline';

const standIn = path.join(repoRoot, 'test/bin/rocprofv3');
let work: string;

before(() => {
  work = tempDir('kr-examples-');
  for (const f of ['task.py', 'reference.py']) copyFileSync(path.join(vectoradd, f), path.join(work, f));
  for (const f of ['eval.py', 'utils.py']) copyFileSync(path.join(problems, f), path.join(work, f));
  writeFileSync(path.join(work, 'cases.txt'), 'size: 127; seed: 4242\nsize: 1024; seed: 5236\n');
});

after(() => rmSync(work, { recursive: true, force: true }));

/** Runs eval.py with the given submission; POPCORN_FD=3 goes to a file whose `key: value` lines are returned. */
function evaluate(submission: string, mode: string, env: NodeJS.ProcessEnv = {}, cases = 'cases.txt') {
  copyFileSync(submission, path.join(work, 'submission.py'));
  const out = path.join(work, 'popcorn.txt');
  const r = spawnSync('sh', ['-c', `python3 eval.py ${mode} ${cases} 3>'${out}'`], {
    cwd: work,
    encoding: 'utf8',
    env: { ...process.env, POPCORN_FD: '3', ...env },
  });
  const values: Record<string, string> = {};
  if (existsSync(out)) {
    for (const line of readFileSync(out, 'utf8').split('\n')) {
      const at = line.indexOf(': ');
      if (at > 0) values[line.slice(0, at)] = line.slice(at + 2);
    }
    rmSync(out);
  }
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, values };
}

const template = path.join(vectoradd, 'submission.py');

test('eval.py test/benchmark/leaderboard/profile on the template: key/value protocol, exit 0', () => {
  const t = evaluate(template, 'test');
  assert.equal(t.code, 0, t.stderr);
  assert.equal(t.values.check, 'pass');
  assert.equal(t.values['test-count'], '2');
  assert.equal(t.values['test.1.spec'], 'size: 1024; seed: 5236');
  for (const mode of ['benchmark', 'leaderboard']) {
    const b = evaluate(template, mode);
    assert.equal(b.code, 0, b.stderr);
    for (const k of ['runs', 'mean', 'std', 'err', 'best', 'worst'])
      assert.ok(Number(b.values[`benchmark.0.${k}`]) >= 0, `${mode} benchmark.0.${k}`);
    assert.ok(Number(b.values['benchmark.1.mean']) > 0);
  }
  const p = evaluate(template, 'profile');
  assert.equal(p.code, 0, p.stderr);
  assert.match(
    decodePopcornBase64(p.values['benchmark.0.report'] as string),
    /^cProfile of custom_kernel, 20 calls, case size: 127; seed: 4242/,
  );
  assert.match(t.stdout, /2\/2 tests passed/);
});

test('eval.py exit codes: 112 failed check, 113 bad cases file, 111 no POPCORN_FD, 114 its own time budget', () => {
  const wrong = evaluate(path.join(vectoradd, 'solutions/wrong/bad_values.py'), 'test');
  assert.equal(wrong.code, 112);
  assert.equal(wrong.values.check, 'fail');
  assert.match(wrong.values['test.0.error'] as string, /mismatched elements: at 0: got/);
  const crash = evaluate(path.join(vectoradd, 'solutions/wrong/crash.py'), 'benchmark');
  assert.equal(crash.code, 112);
  assert.equal(crash.values['benchmark.0.error'], 'ValueError: kernel launch failed on purpose');
  assert.match(crash.stderr, /Traceback/);
  writeFileSync(path.join(work, 'bad.txt'), 'size = 3\n');
  assert.equal(evaluate(template, 'test', {}, 'bad.txt').code, 113);
  assert.equal(evaluate(template, 'test', { POPCORN_FD: '' }).code, 111);
  assert.equal(evaluate(path.join(vectoradd, 'solutions/slow/hang.py'), 'test', { KR_EVAL_TIMEOUT: '1' }).code, 114);
});

test('every correct solution passes and every wrong one fails, in both problems', () => {
  for (const problem of ['vectoradd_py', 'prefixsum_py']) {
    const dir = path.join(problems, problem);
    for (const f of ['task.py', 'reference.py']) copyFileSync(path.join(dir, f), path.join(work, f));
    for (const kind of ['correct', 'wrong']) {
      for (const file of readdirSync(path.join(dir, 'solutions', kind))) {
        const r = evaluate(path.join(dir, 'solutions', kind, file), 'test');
        assert.equal(r.code, kind === 'correct' ? 0 : 112, `${problem}/${kind}/${file}: ${r.stderr}`);
      }
    }
  }
  for (const f of ['task.py', 'reference.py']) copyFileSync(path.join(vectoradd, f), path.join(work, f));
});

test("stand-in rocprofv3: requires --, writes the recorded outputs under real names, exit code is the app's", () => {
  const missing = spawnSync(standIn, ['--kernel-trace', 'python3', '-c', 'pass'], { encoding: 'utf8' });
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /must follow '--'/);
  assert.equal(spawnSync(standIn, ['--no-such-flag', '--', 'true'], { encoding: 'utf8' }).status, 2);

  const out = path.join(work, 'prof');
  const r = spawnSync(
    standIn,
    [
      '--log-level',
      'fatal',
      '--hip-trace',
      '--kernel-trace',
      '--marker-trace',
      '--memory-copy-trace',
      '--output-format',
      'pftrace',
      'csv',
      '-d',
      out,
      '-o',
      'run_%pid%',
      '--',
      'python3',
      '-c',
      'import sys; print("app out"); print("app err", file=sys.stderr); sys.exit(5)',
    ],
    { encoding: 'utf8', env: { ...process.env, KR_FAKE_ROCPROF_NOISE: 'level' } },
  );
  assert.equal(r.status, 5);
  assert.equal(r.stdout, 'app out\n');
  assert.match(r.stderr, /app err/);
  assert.match(r.stderr, /perfetto\.cc/); // Perfetto lines survive --log-level fatal, as with the real tool
  assert.doesNotMatch(r.stderr, /simple_timer\.cpp/); // glog lines do not
  // the stand-in's own record of its command line (rocprofv3_standin_argv.json) is not one of rocprofv3's outputs
  const files = readdirSync(out)
    .filter((f) => f !== '.rocprofv3' && f !== 'rocprofv3_standin_argv.json')
    .map((f) => f.replace(/^run_\d+_/, 'run_PID_'))
    .sort();
  assert.deepEqual(files, [
    'run_PID_agent_info.csv',
    'run_PID_hip_api_trace.csv',
    'run_PID_kernel_trace.csv',
    'run_PID_marker_api_trace.csv',
    'run_PID_memory_copy_trace.csv',
    'run_PID_results.pftrace',
  ]);
  assert.ok(readdirSync(path.join(out, '.rocprofv3')).length > 0);
  const kernel = readdirSync(out).find((f) => f.endsWith('_kernel_trace.csv')) as string;
  assert.match(readFileSync(path.join(out, kernel), 'utf8'), /^"Kind","Agent_Id","Queue_Id"/);
  assert.equal(readFileSync(path.join(out, readdirSync(out).find((f) => f.endsWith('.pftrace')) as string))[0], 0x0a); // Trace.packet, field 1
});

test('stand-in rocprofv3: on SIGINT it passes the signal on and still writes its files', async () => {
  const out = path.join(work, 'prof-int');
  const child = spawn(
    standIn,
    [
      '--kernel-trace',
      '-f',
      'csv',
      '-d',
      out,
      '-o',
      'x',
      '--',
      'python3',
      '-c',
      'import time\nprint("ready", flush=True)\ntime.sleep(30)',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  await new Promise<void>((resolve) =>
    child.stdout.on('data', (d: Buffer) => d.toString().includes('ready') && resolve()),
  );
  child.kill('SIGINT');
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((r) =>
    child.on('close', (c, s) => r([c, s])),
  );
  assert.equal(signal, 'SIGINT', `exit ${code} ${signal}`); // the app died of SIGINT, so does the tool (it replaces itself with the app)
  assert.match(stderr, /rocprofv3 caught signal 2/);
  assert.ok(existsSync(path.join(out, 'x_kernel_trace.csv')) && existsSync(path.join(out, 'x_agent_info.csv')));
});

test('stand-in rocprofv3: one clock per run (copies in, kernels, copies out), agents from its agent_info, recorded values kept', () => {
  const out = path.join(work, 'prof-clock');
  const before = process.hrtime.bigint(); // CLOCK_MONOTONIC, as the stand-in's clock
  const r = spawnSync(
    standIn,
    [
      '--hip-trace',
      '--kernel-trace',
      '--marker-trace',
      '--memory-copy-trace',
      '--scratch-memory-trace',
      '-f',
      'csv',
      '-d',
      out,
      '-o',
      'run',
      '--',
      'python3',
      '-c',
      'pass',
    ],
    { encoding: 'utf8', env: { ...process.env, KR_FAKE_ROCPROF_NOISE: 'none' } },
  );
  const afterExit = process.hrtime.bigint();
  assert.equal(r.status, 0, r.stderr);
  const written = (kind: string) => readCsv(path.join(out, `run_${kind}.csv`));
  const copies = written('memory_copy_trace');
  const t0 = Math.min(...copies.map((c) => Number(c.Start_Timestamp)));
  assert.ok(BigInt(t0) >= before && BigInt(t0) <= afterExit, 'T0 is a CLOCK_MONOTONIC time within the run');

  const expected = expectedRun(t0);
  assert.deepEqual(
    written('kernel_trace'),
    expected.kernels,
    'kernels: GAP after the last copy in, on the GPU agent, recorded names and durations',
  );
  assert.deepEqual(
    copies,
    [...expected.toDevice, ...expected.back],
    'copies in from T0, copies out GAP after the kernels, GPU end on the GPU agent',
  );
  assert.ok(copies.every((c) => [c.Source_Agent_Id, c.Destination_Agent_Id].sort().join() === `Agent 0,${GPU_AGENT}`));
  const lastIn = Math.max(...expected.toDevice.map((c) => Number(c.End_Timestamp)));
  const firstKernel = Math.min(...expected.kernels.map((k) => Number(k.Start_Timestamp)));
  const lastKernel = Math.max(...expected.kernels.map((k) => Number(k.End_Timestamp)));
  const firstOut = Math.min(...expected.back.map((c) => Number(c.Start_Timestamp)));
  assert.deepEqual([firstKernel - lastIn, firstOut - lastKernel], [GAP_NS, GAP_NS]);
  for (const [kind, name] of [
    ['hip_api_trace', 'hip_trace'],
    ['marker_api_trace', 'marker_api_trace'],
  ] as const) {
    assert.deepEqual(written(kind), shiftTo(fixture(name), t0), `${kind} starts at T0 with its recorded spacing`);
  }
  const scratch = written('scratch_memory_trace');
  assert.deepEqual(
    scratch,
    shiftTo(fixture('scratch_memory_trace'), t0).map((row): Row => ({ ...row, Agent_Id: GPU_AGENT })),
  );
  const agents = readCsv(path.join(out, 'run_agent_info.csv'));
  assert.deepEqual(
    agents.filter((a) => a.Agent_Type === 'GPU').map((a) => `Agent ${a.Node_Id}`)[0],
    GPU_AGENT,
    "the kernels' agent is a GPU of agent_info",
  );
});
