// `kernel-runner submit --mode profile --counters ... --kernel-regex ... --case ... --launches ...` in-process
// against a real runner on loopback (stand-in rocprofv3, rocminfo and amd-smi): the options travel as form fields
// and the saved archive holds every counter pass; bad flags end the command with exit 2 before anything is sent.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { runSubmit } from '../../../src/cli/commands/submit';
import { CliExit } from '../../../src/cli/exit';
import { rooflineCounters, splitIntoPasses } from '../../../src/runner/counterSets';
import { counterRows, gpuInfoBin, readZip } from '../runner/counterHelpers';
import { solutions, startTestRunner, tempDir, testBin, type TestRunner } from '../runner/helpers';

function capture() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (d: Buffer) => (text += d.toString()));
  return { stream, text: () => text };
}

function zipsUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.zip'))
    .map((e) => path.join(e.parentPath, e.name));
}

describe('submit --counters (CLI)', () => {
  let runner: TestRunner;
  let bin: string;
  let dir: string;
  let file: string;
  before(async () => {
    bin = gpuInfoBin();
    dir = tempDir('kr-counters-cli-');
    file = path.join(dir, 'map_add.py');
    writeFileSync(file, readFileSync(path.join(solutions, 'correct/map_add.py')));
    const env = {
      ...process.env,
      PATH: [bin, testBin, process.env.PATH ?? ''].join(path.delimiter),
      KR_FAKE_ROCPROF_NOISE: 'none',
    };
    runner = await startTestRunner({ profiler: 'auto', env });
  });
  after(async () => {
    await runner.dispose();
    rmSync(bin, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  });

  test('the flags reach rocprofv3 through the runner: one case, the roofline passes, only the selected launches', async () => {
    const out = capture();
    const err = capture();
    const traces = path.join(dir, 'traces');
    const code = await runSubmit(
      file,
      {
        server: runner.url,
        mode: 'profile',
        leaderboard: 'vectoradd_py',
        gpu: 'MI300',
        out: traces,
        counters: 'roofline',
        kernelRegex: 'addition',
        case: '0',
        launches: '1',
      },
      { stdout: out.stream, stderr: err.stream, color: false, cwd: dir },
    );
    assert.equal(code, 0, err.text());
    const zips = zipsUnder(traces);
    assert.equal(zips.length, 1, `one case profiled: ${zips.join(', ')}`);
    const zip = await readZip(readFileSync(zips[0]!));
    const passes = splitIntoPasses(rooflineCounters('gfx942'));
    for (const [i, group] of passes.entries()) {
      const name = [...zip.keys()].find((n) => n.startsWith(`pass_${i + 1}/`) && n.endsWith('_counter_collection.csv'));
      assert.ok(name, `pass_${i + 1}`);
      const rows = counterRows(zip.get(name)!.toString('utf8'));
      // --kernel-regex addition and --launches 1: the first launch of addition_kernel only, one row per counter
      assert.deepEqual(
        new Set(rows.map((r) => r.kernel)),
        new Set(['void addition_kernel<float>(float*, float const*, float const*, int, int)']),
      );
      assert.equal(rows.length, group.length);
    }
    assert.ok(zip.has('sysinfo.csv'));
  });

  test('bad flags: exit 2 naming the flag, and no job reaches the runner', async () => {
    const jobs = () => readdirSync(path.join(runner.dataDir, 'jobs')).length;
    const before = jobs();
    const io = { stdout: capture().stream, stderr: capture().stream, color: false, cwd: dir };
    for (const [opts, message] of [
      [{ counters: 'SQ_WAVES;id' }, /^--counters: counter name "SQ_WAVES;id" is not valid/],
      [{ counters: 'speedoflight' }, /^--counters: unknown counter preset "speedoflight"/],
      [{ kernelRegex: '(' }, /^--kernel-regex: .*not a valid regular expression/],
      [{ case: 'x' }, /^--case: /],
      [{ launches: '9-3' }, /^--launches: /],
      [{ counters: 'roofline', mode: 'test' }, /^--counters: only with --mode profile/],
      [
        { pcSampling: 'sometimes' },
        /^--pc-sampling: PC sampling must be off, host_trap or stochastic, not "sometimes"/,
      ],
      [
        { pcSampling: 'stochastic', pcSamplingInterval: '1000' },
        /^--pc-sampling-interval: stochastic PC sampling takes a power of two from 256/,
      ],
      [
        { pcSamplingInterval: '8' },
        /^--pc-sampling-interval: pc_sampling_interval and pc_sampling_unit need pc_sampling=host_trap or stochastic/,
      ],
      [
        { counters: 'roofline', pcSampling: 'host_trap', mode: 'benchmark' },
        /^--counters, --pc-sampling: only with --mode profile/,
      ],
      [{ pcSampling: 'host_trap', server: 'gpumode' }, /^--pc-sampling is for our runners/],
    ] as const) {
      await assert.rejects(
        runSubmit(
          file,
          { server: runner.url, mode: 'profile', leaderboard: 'vectoradd_py', gpu: 'MI300', ...opts },
          io,
        ),
        (e: unknown) => e instanceof CliExit && e.exitCode === 2 && message.test(e.message),
        JSON.stringify(opts),
      );
    }
    assert.equal(jobs(), before);
  });
});
