// The runner's pure pieces: output caps, GPU names, the event log, scores, problem files, names and paths.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createHeadTail } from '../../../src/runner/headTail';
import { amdGpuName, nvidiaGpuName, parseRocminfo, parseRocmSmi } from '../../../src/runner/gpus';
import {
  formatFrame,
  openEventLog,
  parseFrame,
  readEventLog,
  readEvents,
  repairLog,
  type FrameBatch,
} from '../../../src/runner/eventLog';
import { nvccArgs } from '../../../src/runner/evaluate';
import { timingPassOnly } from '../../../src/runner/artifacts';
import { scoreFromResultValues as computeScore } from '../../../src/core/scoring';
import { parsePopcornOutput, quoteCommand } from '../../../src/runner/executor';
import { casesFileText, loadProblem, loadProblems } from '../../../src/runner/problems';
import { safeFileName } from '../../../src/runner/routes';
import { containedPath, isSafeArtifactName } from '../../../src/runner/store';
import { createPlainFramer, plainFrame } from '../../../src/runner/http/sse';
import { createRouter } from '../../../src/runner/http/router';
import { HttpError } from '../../../src/runner/http/errors';
import { wrapCommand } from '../../../src/runner/profilers';

const tmp = () => mkdtempSync(path.join(tmpdir(), 'kr-unit-'));

test('head/tail cap keeps both ends and counts what it dropped', () => {
  const keep = createHeadTail(100);
  for (let i = 0; i < 1000; i++) keep.push(`line ${String(i).padStart(4, '0')}\n`);
  const text = keep.text();
  assert.ok(text.startsWith('line 0000\nline 0001\n'));
  assert.ok(text.endsWith('line 0998\nline 0999\n'));
  const m = /\[\.\.\. (\d+) bytes omitted \.\.\.\]\n/.exec(text);
  assert.ok(m);
  const kept = text.replace(m[0], '');
  assert.equal(Buffer.byteLength(kept) + Number(m[1]), keep.totalBytes);
  assert.equal(keep.omittedBytes, Number(m[1]));
  const small = createHeadTail(100);
  small.push('short\n');
  assert.equal(small.text(), 'short\n');
  const one = createHeadTail(10);
  one.push('x'.repeat(50));
  assert.equal(one.text(), 'xxxxx\n[... 40 bytes omitted ...]\nxxxxx');
});

test('GPU names: rocminfo, rocm-smi and nvidia-smi products map to GPU MODE names', () => {
  const rocminfo = `*******
Agent 1
*******
  Name:                    AMD EPYC 9654 96-Core Processor
  Marketing Name:          AMD EPYC 9654 96-Core Processor
  Device Type:             CPU
*******
Agent 2
*******
  Name:                    gfx942
  Marketing Name:          AMD Instinct MI300X
  Vendor Name:             AMD
  Device Type:             GPU
*******
Agent 3
*******
  Name:                    gfx942
  Marketing Name:          AMD Instinct MI300X
  Device Type:             GPU
`;
  assert.deepEqual(parseRocminfo(rocminfo), ['AMD Instinct MI300X', 'AMD Instinct MI300X']);
  assert.deepEqual(
    parseRocmSmi(
      'GPU[0]\t\t: Card Series: \t\tAMD Instinct MI250X\nGPU[0]\t\t: Card SKU: \t\tD65209\nGPU[1]\t\t: Card Series: \t\tAMD Instinct MI250X\n',
    ),
    ['AMD Instinct MI250X', 'AMD Instinct MI250X'],
  );
  assert.equal(amdGpuName('AMD Instinct MI300X'), 'MI300');
  assert.equal(amdGpuName('AMD Instinct MI250X'), 'MI250');
  assert.equal(amdGpuName('AMD Instinct MI355X'), 'MI355X');
  assert.equal(nvidiaGpuName('NVIDIA H100 80GB HBM3'), 'H100');
  assert.equal(nvidiaGpuName('Tesla T4'), 'T4');
  assert.equal(nvidiaGpuName('NVIDIA GeForce RTX 4090'), 'NVIDIA');
});

test('event log: SSE frames appended in batches, replayed after an id, a torn last frame repaired', async () => {
  const dir = tmp();
  try {
    const file = path.join(dir, 'events.sse');
    const batches: FrameBatch[] = [];
    const log = openEventLog(file, 0, (b) => batches.push(b));
    for (let i = 0; i < 2500; i++)
      log.append('output', JSON.stringify({ stream: 'stdout', text: `l${i} "q" \n\n id: 9`, noise: false }));
    assert.equal(log.append('result', '{"status":"success","results":[],"reports":[]}', true), 2501);
    await log.close();
    assert.equal(batches[batches.length - 1]!.terminal, true);
    assert.equal(batches[0]!.first, 1);
    assert.equal(batches[batches.length - 1]!.last, 2501);
    assert.equal(Buffer.concat(batches.map((b) => b.bytes)).toString(), readFileSync(file, 'utf8'));
    const after = [];
    for await (const ev of readEvents(file, 2490)) after.push(ev);
    assert.deepEqual(
      after.map((e) => e.id),
      [2491, 2492, 2493, 2494, 2495, 2496, 2497, 2498, 2499, 2500, 2501],
    );
    assert.equal(JSON.parse(after[0]!.json).text, 'l2490 "q" \n\n id: 9');
    const window = [];
    for await (const chunk of readEventLog(file, 10, 12)) window.push(chunk);
    assert.equal(window.length, 1);
    assert.equal(window[0]!.last, 12);
    assert.match(
      window[0]!.bytes.toString('utf8'),
      /^id: 11\nevent: output\ndata: .*\n\nid: 12\nevent: output\ndata: .*\n\n$/,
    );
    appendFileSync(file, 'id: 2502\nevent: output\ndata: {"str');
    assert.equal(repairLog(file), 2501);
    assert.ok(readFileSync(file, 'utf8').endsWith('"reports":[]}\n\n'));
    assert.deepEqual(parseFrame(formatFrame(7, 'status', '{"a":1}').slice(0, -2)), {
      id: 7,
      event: 'status',
      json: '{"a":1}',
    });
    const reopened = openEventLog(file, repairLog(file));
    assert.equal(reopened.append('error', '{}', true), 2502);
    await reopened.close();
    const torn = path.join(dir, 'torn.sse');
    writeFileSync(torn, 'id: 1\nevent: job\ndata: {}\n\nid: 2\nevent: output\ndata: {"x":"' + 'y'.repeat(3 << 20));
    assert.equal(repairLog(torn), 1);
    assert.equal(readFileSync(torn, 'utf8'), 'id: 1\nevent: job\ndata: {}\n\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('score from the ranked run: last, mean, geometric mean, in seconds', () => {
  const r = { 'benchmark-count': '2', 'benchmark.0.mean': '1000', 'benchmark.1.mean': '4000' };
  assert.equal(computeScore(r, 'last'), 4e-6);
  assert.ok(Math.abs(computeScore(r, 'mean')! - 2.5e-6) < 1e-15);
  assert.ok(Math.abs(computeScore(r, 'geom')! - 2e-6) < 1e-15);
  assert.equal(computeScore({ 'benchmark-count': '1', 'benchmark.0.status': 'fail' }, 'last'), null);
  assert.equal(computeScore({}, 'last'), null);
});

test('POPCORN_FD lines and cases files', () => {
  assert.deepEqual(parsePopcornOutput('check: pass\ntest.0.spec: size: 1; seed: 2\nbad line\n\n'), {
    check: 'pass',
    'test.0.spec': 'size: 1; seed: 2',
  });
  assert.equal(casesFileText([{ size: 1, seed: 2 }, { n: 'x' }]), 'size: 1; seed: 2\nn: x\n');
  assert.equal(quoteCommand('python3', ['eval.py', 'a b', "it's"]), `python3 eval.py 'a b' 'it'\\''s'`);
});

test('problems: task.yml read as reference-kernels writes it; bad ones skipped with a reason', () => {
  const dir = tmp();
  try {
    mkdirSync(path.join(dir, 'good'));
    writeFileSync(path.join(dir, 'eval.py'), '');
    writeFileSync(
      path.join(dir, 'good/task.yml'),
      'files:\n  - {"name": "submission.py", "source": "@SUBMISSION@"}\n  - {"name": "eval.py", "source": "../eval.py"}\nlang: "py"\nconfig:\n  main: "eval.py"\ntests:\n  - {"size": 1}\nbenchmarks: []\ntest_timeout: 5\n',
    );
    const p = loadProblem(path.join(dir, 'good/task.yml'));
    assert.equal(p.name, 'good');
    assert.deepEqual(p.timeouts, { test: 5, benchmark: 180, ranked: 180 });
    assert.equal(p.files[1]!.source, path.join(dir, 'eval.py'));
    for (const [name, yml, reason] of [
      ['nosub', 'files:\n  - {"name": "eval.py", "source": "../eval.py"}\n', /no @SUBMISSION@/],
      [
        'missing',
        'files:\n  - {"name": "submission.py", "source": "@SUBMISSION@"}\n  - {"name": "x.py", "source": "x.py"}\n',
        /x\.py does not exist/,
      ],
      [
        'rust',
        'lang: rs\nfiles:\n  - {"name": "submission.rs", "source": "@SUBMISSION@"}\n',
        /lang 'rs' is not run by kernel-runner serve \(it runs lang: py, and lang: cu built with nvcc\)/,
      ],
      [
        'cunosrc',
        'lang: cu\nfiles:\n  - {"name": "submission.cu", "source": "@SUBMISSION@"}\n',
        /lang: cu needs config\.sources/,
      ],
      [
        'cubadsrc',
        'lang: cu\nfiles:\n  - {"name": "submission.cu", "source": "@SUBMISSION@"}\nconfig:\n  sources: [eval.cu]\n',
        /config\.sources lists eval\.cu, which is not in files/,
      ],
      [
        'cudefine',
        'lang: cu\nfiles:\n  - {"name": "submission.cu", "source": "@SUBMISSION@"}\nconfig:\n  sources: [submission.cu]\n  defines: {"A-B": 1}\n',
        /A-B is not a valid macro name/,
      ],
      ['escape', 'files:\n  - {"name": "../evil.py", "source": "@SUBMISSION@"}\n', /inside the run folder/],
      ['yaml', 'files: [\n', /task\.yml/],
    ] as const) {
      mkdirSync(path.join(dir, name));
      writeFileSync(path.join(dir, name, 'task.yml'), yml);
      assert.throws(() => loadProblem(path.join(dir, name, 'task.yml')), reason);
    }
    const set = loadProblems(dir);
    assert.deepEqual([...set.problems.keys()], ['good']);
    assert.equal(set.warnings.length, 8);
    assert.equal(p.cuda, null);
    mkdirSync(path.join(dir, 'cu'));
    writeFileSync(path.join(dir, 'cu/eval.cu'), '');
    writeFileSync(
      path.join(dir, 'cu/task.yml'),
      'lang: cu\nfiles:\n  - {"name": "eval.cu", "source": "eval.cu"}\n  - {"name": "submission.cu", "source": "@SUBMISSION@"}\n' +
        'config:\n  sources: [eval.cu, submission.cu]\n  include_dirs: [/opt/tk/include]\n  defines: {"N": 4, "FAST": null}\n  compile_flags: [-lineinfo]\n',
    );
    const cu = loadProblem(path.join(dir, 'cu/task.yml'));
    assert.equal(cu.lang, 'cu');
    assert.deepEqual(cu.cuda, {
      sources: ['eval.cu', 'submission.cu'],
      includeDirs: ['/opt/tk/include'],
      defines: { N: '4', FAST: null },
      flags: ['-lineinfo'],
    });
    assert.deepEqual(nvccArgs(cu.cuda!, 'H100').slice(-9), [
      '-lineinfo',
      '-I/opt/tk/include',
      '-DN=4',
      '-DFAST',
      'eval.cu',
      'submission.cu',
      '-gencode=arch=compute_90a,code=sm_90a',
      '-o',
      'eval.out',
    ]);
    assert.equal(nvccArgs(cu.cuda!, 'CPU').at(-3), '-arch=native');
    assert.match(loadProblems(path.join(dir, 'none')).warnings[0]!, /does not exist/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('upload names and artifact names stay inside their folders', () => {
  assert.equal(safeFileName('../../etc/passwd'), 'passwd');
  assert.equal(safeFileName('C:\\Users\\me\\kernel.hip'), 'kernel.hip');
  assert.equal(safeFileName('my kernel (v2).py'), 'my_kernel__v2_.py');
  assert.equal(safeFileName('..'), 'submission');
  for (const bad of ['..', '../x.zip', '..\\x.zip', '/etc/passwd', '.hidden', 'a/b.zip', '%2e%2e', 'x\0.zip', '']) {
    assert.equal(isSafeArtifactName(bad), false, bad);
    assert.equal(containedPath('/data/jobs/1/artifacts', bad), null, bad);
  }
  assert.equal(
    containedPath('/data/jobs/1/artifacts', 'job-1-profile.0.zip'),
    '/data/jobs/1/artifacts/job-1-profile.0.zip',
  );
});

test('plain clients: status events thinned to the heartbeat, upstream fields only, extras dropped', () => {
  const frame = createPlainFramer(1000);
  const status = (t: number) => ({
    id: 1,
    event: 'status' as const,
    json: JSON.stringify({ status: 'processing', elapsed_time: t, state: 'running', queue_position: 0 }),
  });
  assert.equal(frame(status(0)), 'event: status\ndata: {"status":"processing","elapsed_time":0}\n\n');
  assert.equal(frame(status(0.1)), null);
  assert.notEqual(frame(status(1)), null);
  assert.equal(frame({ id: 2, event: 'output', json: '{}' }), null);
  assert.equal(frame({ id: 3, event: 'job', json: '{}' }), null);
  const result = plainFrame({
    id: 4,
    event: 'result',
    json: JSON.stringify({
      status: 'success',
      results: [
        {
          runs: {
            'profile.0': {
              profile: { profiler: 'rocPROF', trace: 'UEs=', download_url: 'u', summary: {}, artifact: 'a.zip' },
            },
          },
        },
      ],
      reports: [],
    }),
  });
  assert.equal(
    result,
    'event: result\ndata: {"status":"success","results":[{"runs":{"profile.0":{"profile":{"profiler":"rocPROF","trace":"UEs=","download_url":"u"}}}}],"reports":[]}\n\n',
  );
});

test('router: parameters decoded, 404 and 405 with Allow', () => {
  const r = createRouter();
  const h = () => undefined;
  r.add('GET', '/jobs/:id', h).add('DELETE', '/jobs/:id', h).add('POST', '/:lb/:gpu/:mode', h);
  assert.deepEqual(r.match('GET', '/jobs/12').params, { id: '12' });
  assert.deepEqual(r.match('POST', '/a%20b/MI300/test').params, { lb: 'a b', gpu: 'MI300', mode: 'test' });
  assert.throws(
    () => r.match('PUT', '/jobs/1'),
    (e: unknown) => e instanceof HttpError && e.status === 405 && e.headers.Allow === 'GET, DELETE',
  );
  assert.throws(
    () => r.match('GET', '/x/y/z/w'),
    (e: unknown) => e instanceof HttpError && e.status === 404,
  );
  assert.throws(
    () => r.match('GET', '/jobs/%E0%A4%A'),
    (e: unknown) => e instanceof HttpError && e.status === 400,
  );
});

test('profiler command lines: kernelbot flags for rocprofv3, legacy rocprof without --', () => {
  const v3 = wrapCommand(
    { kind: 'rocprofv3', path: '/opt/rocm/bin/rocprofv3' },
    '/out',
    { command: 'python3', args: ['eval.py', 'profile', 'c'] },
    { rocpd: true },
  );
  assert.equal(
    quoteCommand(v3.command, v3.args),
    '/opt/rocm/bin/rocprofv3 --log-level fatal --hip-trace --kernel-trace --rccl-trace --marker-trace --memory-copy-trace --scratch-memory-trace --output-format pftrace csv rocpd -d /out -o %pid% -- python3 eval.py profile c',
  );
  const v1 = wrapCommand({ kind: 'rocprof', path: '/opt/rocm/bin/rocprof' }, '/out', {
    command: 'python3',
    args: ['x.py'],
  });
  assert.deepEqual(v1.args, ['--hip-trace', '--stats', '-d', '/out', '-o', '/out/results.csv', 'python3', 'x.py']);
});

test("combined.pftrace of a counter run: the first pass's traces only (each pass traces the whole program again)", () => {
  const files = [
    'pass_2/node/12_results.pftrace',
    'pass_10/node/19_results.pftrace',
    'pass_1/node/11_results.pftrace',
    'pass_1/node/13_results.pftrace',
  ];
  assert.deepEqual(timingPassOnly(files), ['pass_1/node/11_results.pftrace', 'pass_1/node/13_results.pftrace']);
  assert.deepEqual(
    timingPassOnly(['node/11_results.pftrace', 'node/12_results.pftrace']),
    ['node/11_results.pftrace', 'node/12_results.pftrace'],
    'no passes: every trace',
  );
});
