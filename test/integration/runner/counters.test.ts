// Profile mode with hardware counters and kernel selection, end to end on a real runner on loopback: the stand-in
// `test/bin/rocprofv3` (replaying --pmc passes as current rocprofv3 lays them out) and stand-in `rocminfo` /
// `amd-smi` printing our MI300X samples (test/fixtures/gpu-info), so the runner sees an MI300X (gfx942).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { EXTENSIONS_HEADER, resultEventSchema } from '../../../src/core/protocol/api';
import { traceSummarySchema } from '../../../src/core/protocol/traceSummary';
import { rooflineCounters, splitIntoPasses } from '../../../src/runner/counterSets';
import { counterRows, gpuInfoBin, readZip } from './counterHelpers';
import { readSse, solutions, startTestRunner, terminal, testBin, type TestRunner } from './helpers';

const correct = readFileSync(path.join(solutions, 'correct/map_add.py'), 'utf8');

function formWith(fields: Record<string, string>): FormData {
  const fd = new FormData();
  fd.append('file', new Blob([new TextEncoder().encode(correct)]), 'map_add.py');
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  return fd;
}

describe('profile mode with counters=roofline and kernel selection (stand-in rocprofv3, MI300X samples)', () => {
  let runner: TestRunner;
  let bin: string;
  before(async () => {
    bin = gpuInfoBin();
    const env = {
      ...process.env,
      PATH: [bin, testBin, process.env.PATH ?? ''].join(path.delimiter),
      KR_FAKE_ROCPROF_NOISE: 'none',
    };
    runner = await startTestRunner({ profiler: 'auto', env });
    assert.equal(runner.info.profiler?.kind, 'rocprofv3');
    assert.ok(runner.info.gpus.includes('MI300'), `GPUs: ${runner.info.gpus.join(', ')}`);
  });
  after(async () => {
    await runner.dispose();
    rmSync(bin, { recursive: true, force: true });
  });

  test('one case, three --pmc passes of gfx942 roofline counters, kernel regex and launch window: every pass in the archive, sysinfo.csv beside', async () => {
    const fields = {
      counters: 'roofline',
      kernel_regex: 'addition|subtract',
      kernel_iteration_range: '1-2',
      case: '1',
    };
    const res = await fetch(`${runner.url}/vectoradd_py/MI300/profile`, {
      method: 'POST',
      body: formWith(fields),
      headers: { [EXTENSIONS_HEADER]: '1' },
    });
    assert.equal(res.status, 200);
    const events = await readSse(res);
    const result = resultEventSchema.parse(terminal(events).data);
    const runs = result.results[0]!.runs;
    assert.deepEqual(Object.keys(runs), ['profile.1'], 'case=1: only the second benchmark case ran');
    const run = runs['profile.1']!.run!;
    assert.equal(run.passed, true, run.stderr);

    const expectedPasses = splitIntoPasses(rooflineCounters('gfx942'));
    assert.equal(expectedPasses.length, 3);
    const pmcFlags = expectedPasses.map((g) => `--pmc ${g.join(' ')}`).join(' ');
    assert.ok(run.command.includes(pmcFlags), run.command);
    assert.match(run.command, /--kernel-include-regex='?addition\|subtract'? /);
    assert.match(run.command, /--kernel-iteration-range='?\[1-2\]'? /);

    const profile = runs['profile.1']!.profile!;
    const zip = await readZip(Buffer.from(profile.trace, 'base64'));
    const names = [...zip.keys()];
    // what rocprofv3 was asked, as the stand-in recorded its own argv
    const argv = JSON.parse(zip.get('rocprofv3_standin_argv.json')!.toString('utf8')) as string[];
    const groups: string[][] = [];
    argv.forEach((a, i) => {
      if (a !== '--pmc') return;
      const g: string[] = [];
      for (let j = i + 1; j < argv.length && !argv[j]!.startsWith('-'); j++) g.push(argv[j]!);
      groups.push(g);
    });
    assert.deepEqual(groups, expectedPasses);
    assert.ok(argv.includes('--kernel-include-regex=addition|subtract'), argv.join(' '));
    assert.ok(argv.includes('--kernel-iteration-range=[1-2]'), argv.join(' '));

    for (const [i, group] of expectedPasses.entries()) {
      const file = names.find((n) => n.startsWith(`pass_${i + 1}/`) && n.endsWith('_counter_collection.csv'));
      assert.ok(file, `pass_${i + 1} counter output in ${names.join(', ')}`);
      const rows = counterRows(zip.get(file)!.toString('utf8'));
      assert.ok(rows.length > 0, file);
      assert.deepEqual(
        [...new Set(rows.map((r) => r.counter))].sort(),
        [...group].sort(),
        `${file}: the counters of pass ${i + 1}`,
      );
      assert.deepEqual(
        rows.filter((r) => !/addition|subtract/.test(r.kernel)),
        [],
        'only kernels the regex selects have counters',
      );
      assert.ok(
        names.some((n) => n.startsWith(`pass_${i + 1}/`) && n.endsWith('_kernel_trace.csv')),
        'each pass has its kernel trace',
      );
    }
    assert.ok(!names.some((n) => /^pass_4\//.test(n)), 'no fourth pass');

    const [header, row] = zip.get('sysinfo.csv')!.toString('utf8').trim().split('\n') as [string, string];
    const sysinfo = Object.fromEntries(header.split(',').map((h, i) => [h, row.split(',')[i]]));
    assert.deepEqual(
      [
        sysinfo.gpu_arch,
        sysinfo.gpu_model,
        sysinfo.cu_per_gpu,
        sysinfo.max_sclk,
        sysinfo.max_mclk,
        sysinfo.num_hbm_channels,
        sysinfo.total_l2_chan,
      ],
      ['gfx942', 'MI300X_A1', '304', '2100', '1300', '128', '128'],
    );
    assert.equal(sysinfo.sources, 'rocminfo: read; amd-smi: read');

    // the summary: timings of one pass, counters of all three joined, peaks from the root's sysinfo.csv
    const pass1Kernels = new Map<string, number>();
    const pass1Trace = names.find((n) => n.startsWith('pass_1/') && n.endsWith('_kernel_trace.csv'))!;
    const traceLines = zip.get(pass1Trace)!.toString('utf8').trim().split('\n');
    const nameAt = traceLines[0]!
      .split(',')
      .map((h) => h.replace(/"/g, ''))
      .indexOf('Kernel_Name');
    for (const line of traceLines.slice(1)) {
      const name = [...line.matchAll(/("(?:[^"]|"")*"|[^,]*)(?:,|$)/g)].map((m) =>
        m[1]!.replace(/^"|"$/g, '').replace(/""/g, '"'),
      )[nameAt]!;
      pass1Kernels.set(name, (pass1Kernels.get(name) ?? 0) + 1);
    }
    assert.ok(pass1Kernels.size > 0, pass1Trace);
    const summary = profile.summary!;
    assert.ok(summary, 'the runner summarised the profile');
    assert.deepEqual(
      new Map(summary.kernels.map((k) => [k.name, k.calls])),
      pass1Kernels,
      'calls of one pass, not three',
    );
    assert.deepEqual(summary.passes, { count: 3, timingsFrom: 'pass_1', counters: ['pass_1', 'pass_2', 'pass_3'] });
    const roofline = summary.roofline!;
    assert.ok(roofline, 'a roofline');
    assert.equal(roofline.peaksFrom, 'spec');
    assert.deepEqual(
      Object.entries(roofline.peaks)
        .filter(([, v]) => v === null)
        .map(([k]) => k),
      [],
      'every peak known',
    );
    assert.ok(roofline.peaks.hbmGBps! > 0);
    assert.ok(roofline.kernels.length > 0);
    for (const k of roofline.kernels) {
      assert.ok(k.bound === 'memory' || k.bound === 'compute', `${k.name}: bound ${k.bound}`);
      // each pass counts the same dispatches (the iteration range's): one pass's rows per dispatch, not three passes'
      const pass1Rows = counterRows(
        zip.get(names.find((n) => n.startsWith('pass_1/') && n.endsWith('_counter_collection.csv'))!)!.toString('utf8'),
      );
      assert.equal(
        k.dispatches,
        pass1Rows.filter((r) => r.kernel === k.name).length / expectedPasses[0]!.length,
        `${k.name}: dispatches of one pass`,
      );
    }
    // the timeline is one pass's: the other passes' traces stay in their folders
    assert.ok(names.includes('combined.pftrace'), names.join(', '));
    assert.ok(
      !names.some((n) => n.startsWith('pass_1/') && n.endsWith('.pftrace')),
      'pass_1 went into combined.pftrace',
    );
    assert.ok(
      names.some((n) => n.startsWith('pass_2/') && n.endsWith('.pftrace')),
      'pass_2 kept out of it',
    );
  });

  test('kernel selection without counters: passed to rocprofv3, no --pmc, and the run says what it selects', async () => {
    const res = await fetch(`${runner.url}/vectoradd_py/MI300/profile`, {
      method: 'POST',
      body: formWith({ kernel_regex: '^void addition', case: '0' }),
      headers: { [EXTENSIONS_HEADER]: '1' },
    });
    const runs = resultEventSchema.parse(terminal(await readSse(res)).data).results[0]!.runs;
    assert.deepEqual(Object.keys(runs), ['profile.0']);
    const run = runs['profile.0']!.run!;
    assert.equal(run.passed, true, run.stderr);
    assert.match(run.command, /--kernel-include-regex='?\^void addition'? /);
    assert.doesNotMatch(run.command, /--pmc/);
    assert.match(run.stderr, /with counters off the kernel trace keeps every kernel/);
    const zip = await readZip(Buffer.from(runs['profile.0']!.profile!.trace, 'base64'));
    assert.ok(!zip.has('sysinfo.csv'), 'sysinfo.csv goes with counters only');
    assert.ok(![...zip.keys()].some((n) => n.startsWith('pass_')));
  });

  test('counters and PC sampling in one run: every --pmc pass is a sampled run, the hot spots add the passes up', async () => {
    const fields = { counters: 'roofline', case: '0', pc_sampling: 'host_trap', pc_sampling_interval: '4' };
    const res = await fetch(`${runner.url}/vectoradd_py/MI300/profile`, {
      method: 'POST',
      body: formWith(fields),
      headers: { [EXTENSIONS_HEADER]: '1' },
    });
    assert.equal(res.status, 200);
    const runs = resultEventSchema.parse(terminal(await readSse(res)).data).results[0]!.runs;
    const run = runs['profile.0']!.run!;
    assert.equal(run.passed, true, run.stderr);
    const passes = splitIntoPasses(rooflineCounters('gfx942'));
    assert.ok(
      run.command.includes(
        `${passes.map((g) => `--pmc ${g.join(' ')}`).join(' ')} --pc-sampling-beta-enabled --pc-sampling-method host_trap --pc-sampling-unit time --pc-sampling-interval 4 --output-format`,
      ),
      run.command,
    );
    const profile = runs['profile.0']!.profile!;
    const zip = await readZip(Buffer.from(profile.trace, 'base64'));
    const names = [...zip.keys()];
    for (const [i, group] of passes.entries()) {
      const counters = names.find((n) => n.startsWith(`pass_${i + 1}/`) && n.endsWith('_counter_collection.csv'));
      assert.ok(counters, `pass_${i + 1} counters in ${names.join(', ')}`);
      assert.deepEqual(
        [...new Set(counterRows(zip.get(counters)!.toString('utf8')).map((r) => r.counter))].sort(),
        [...group].sort(),
      );
      assert.ok(
        names.some((n) => n.startsWith(`pass_${i + 1}/`) && n.endsWith('_pc_sampling_host_trap.csv')),
        `pass_${i + 1} samples in ${names.join(', ')}`,
      );
    }
    const hot = traceSummarySchema.parse(profile.summary).hotspots;
    // 21 recorded host-trap samples (the fixture's PROVENANCE.md) in each of the passes
    assert.equal(hot?.samples, 21 * passes.length);
    assert.equal(hot?.method, 'host_trap');
    assert.equal(hot?.interval, 4);
    assert.equal(hot?.intervalUnit, 'time');
    assert.ok(zip.has('sysinfo.csv'));
  });

  test('bad options are a 400 naming the problem, and nothing runs', async () => {
    const jobsDir = path.join(runner.dataDir, 'jobs');
    const before = readdirSync(jobsDir, { withFileTypes: true }).length;
    for (const [mode, fields, detail] of [
      [
        'profile',
        { counters: 'SQ_WAVES;touch /tmp/kr-pwned' },
        /Invalid profile option 'counters': counter name "SQ_WAVES;touch \/tmp\/kr-pwned" is not valid/,
      ],
      ['profile', { counters: 'rooflne' }, /unknown counter preset "rooflne"/],
      ['profile', { kernel_regex: 'gemm(' }, /Invalid profile option 'kernel_regex'/],
      [
        'profile',
        { kernel_regex: '(?<=void )addition' },
        /Invalid profile option 'kernel_regex': the kernel regex "\(\?<=void \)addition" uses a lookbehind \(\?<=\.\.\.\), which rocprofv3's regex engine does not read/,
      ],
      ['profile', { kernel_regex: '(?<k>add)' }, /'kernel_regex': .* uses a named group/],
      ['profile', { kernel_regex: '\\p{L}+' }, /'kernel_regex': .* uses a Unicode property escape \\p/],
      ['profile', { kernel_iteration_range: '5-1' }, /Invalid profile option 'kernel_iteration_range'/],
      ['profile', { case: '2' }, /'case': 2 is past the last benchmark case of vectoradd_py \(2 cases: 0 to 1\)/],
      ['benchmark', { counters: 'roofline' }, /profile options apply to profile mode only, not benchmark/],
      [
        'profile',
        { counters: 'roofline', pc_sampling: 'stochastic', pc_sampling_interval: '1000' },
        /Invalid profile option 'pc_sampling_interval': stochastic PC sampling takes a power of two/,
      ],
      [
        'profile',
        { pc_sampling: 'host_trap', pc_sampling_unit: 'cycles' },
        /Invalid profile option 'pc_sampling': host_trap PC sampling counts its interval in time/,
      ],
    ] as const) {
      const res = await fetch(`${runner.url}/vectoradd_py/MI300/${mode}`, {
        method: 'POST',
        body: formWith(fields),
        headers: { [EXTENSIONS_HEADER]: '1' },
      });
      assert.equal(res.status, 400, JSON.stringify(fields));
      const body = (await res.json()) as { detail: string };
      assert.match(body.detail, detail);
    }
    assert.equal(readdirSync(jobsDir, { withFileTypes: true }).length, before, 'no job was created');
  });
});

describe('profile mode with counters=roofline on a rocprofv3 that takes one --pmc only (before PR #3364)', () => {
  let runner: TestRunner;
  let bin: string;
  before(async () => {
    bin = gpuInfoBin();
    const env = {
      ...process.env,
      PATH: [bin, testBin, process.env.PATH ?? ''].join(path.delimiter),
      KR_FAKE_ROCPROF_NOISE: 'none',
      KR_FAKE_ROCPROF_PMC: 'legacy',
    };
    runner = await startTestRunner({ profiler: 'auto', env });
  });
  after(async () => {
    await runner.dispose();
    rmSync(bin, { recursive: true, force: true });
  });

  test('its help says no multi-pass: the passes go in an -i input file, with the same pass_<n>/ layout', async () => {
    const res = await fetch(`${runner.url}/vectoradd_py/MI300/profile`, {
      method: 'POST',
      body: formWith({ counters: 'roofline', case: '0' }),
      headers: { [EXTENSIONS_HEADER]: '1' },
    });
    const runs = resultEventSchema.parse(terminal(await readSse(res)).data).results[0]!.runs;
    const run = runs['profile.0']!.run!;
    assert.equal(run.passed, true, run.stderr);
    assert.match(run.command, / -i \S+profile\.0\.trace\.passes\.json /);
    assert.doesNotMatch(run.command, /--pmc/);
    const zip = await readZip(Buffer.from(runs['profile.0']!.profile!.trace, 'base64'));
    for (const [i, group] of splitIntoPasses(rooflineCounters('gfx942')).entries()) {
      const name = [...zip.keys()].find((n) => n.startsWith(`pass_${i + 1}/`) && n.endsWith('_counter_collection.csv'));
      assert.ok(name, `pass_${i + 1} in ${[...zip.keys()].join(', ')}`);
      assert.deepEqual(
        [...new Set(counterRows(zip.get(name)!.toString('utf8')).map((r) => r.counter))].sort(),
        [...group].sort(),
      );
    }
  });
});
