// The counter sets per arch and their split into rocprofv3 passes (docs/counters.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  archOfGpuName,
  BLOCK_LIMITS,
  blockOf,
  counterPasses,
  CounterSetError,
  rooflineCounters,
  speedOfLightCounters,
  splitIntoPasses,
  supportedArch,
} from '../../../src/runner/counterSets';

test('roofline counters per arch: TCC_EA_* on gfx90a, TCC_EA0_* and TCC_BUBBLE on gfx942/gfx950; MFMA F8 from gfx94x, F6F4 on gfx950', () => {
  const mi200 = rooflineCounters('gfx90a');
  const mi300 = rooflineCounters('gfx942');
  const mi350 = rooflineCounters('gfx950');
  assert.ok(
    mi200.includes('TCC_EA_RDREQ_sum') && !mi200.some((c) => c.startsWith('TCC_EA0_') || c === 'TCC_BUBBLE_sum'),
  );
  for (const c of [
    'TCC_BUBBLE_sum',
    'TCC_EA0_RDREQ_sum',
    'TCC_EA0_RDREQ_32B_sum',
    'TCC_EA0_WRREQ_sum',
    'TCC_EA0_WRREQ_64B_sum',
  ]) {
    assert.ok(mi300.includes(c) && mi350.includes(c), c);
  }
  assert.ok(!mi300.some((c) => c.startsWith('TCC_EA_')));
  assert.deepEqual(
    [mi200, mi300, mi350].map((s) => s.includes('SQ_INSTS_VALU_MFMA_MOPS_F8')),
    [false, true, true],
  );
  assert.deepEqual(
    [mi200, mi300, mi350].map((s) => s.includes('SQ_INSTS_VALU_MFMA_MOPS_F6F4')),
    [false, false, true],
  );
  // the roofline formulas' other inputs, on every arch
  for (const s of [mi200, mi300, mi350]) {
    for (const c of [
      'SQ_INSTS_VALU_FMA_F64',
      'SQ_INSTS_VALU_TRANS_F16',
      'SQ_INSTS_VALU_MFMA_MOPS_BF16',
      'SQ_INSTS_VALU_MFMA_MOPS_I8',
      'SQ_LDS_IDX_ACTIVE',
      'SQ_LDS_BANK_CONFLICT',
      'TCP_TOTAL_CACHE_ACCESSES_sum',
      'TCP_TCC_READ_REQ_sum',
      'TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum',
    ]) {
      assert.ok(s.includes(c), c);
    }
  }
  assert.equal(mi300.length, 12 + 6 + 2 + 1 + 4 + 5);
});

test("speed-of-light = the roofline set plus block 2's cache, hit-rate and occupancy inputs", () => {
  const sol = speedOfLightCounters('gfx942');
  for (const c of rooflineCounters('gfx942')) assert.ok(sol.includes(c), c);
  for (const c of ['TCC_REQ_sum', 'TCC_HIT_sum', 'TCC_MISS_sum', 'GRBM_GUI_ACTIVE', 'SQ_LEVEL_WAVES'])
    assert.ok(sol.includes(c), c);
});

test('passes respect the per-block limits, keep every counter once, and give SQ level counters a pass of their own', () => {
  for (const arch of ['gfx90a', 'gfx942', 'gfx950'] as const) {
    for (const set of [rooflineCounters(arch), speedOfLightCounters(arch)]) {
      const passes = splitIntoPasses(set);
      assert.deepEqual(
        passes
          .flat()
          .filter((c) => c !== 'SQ_ACCUM_PREV_HIRES')
          .sort(),
        [...new Set(set)].sort(),
      );
      for (const pass of passes) {
        const per = new Map<string, number>();
        for (const c of pass) per.set(blockOf(c)!, (per.get(blockOf(c)!) ?? 0) + 1);
        for (const [block, n] of per)
          assert.ok(n <= BLOCK_LIMITS[block]!, `${arch}: ${n} ${block} counters in ${pass.join(' ')}`);
        if (pass.includes('SQ_LEVEL_WAVES')) assert.deepEqual(pass, ['SQ_LEVEL_WAVES', 'SQ_ACCUM_PREV_HIRES']);
      }
    }
  }
  // gfx942 roofline: 20 SQ counters (3 passes of <= 8), 5 TCP, 5 TCC -> 3 passes
  assert.deepEqual(
    splitIntoPasses(rooflineCounters('gfx942')).map((p) => p.length),
    [16, 10, 4],
  );
  // a derived metric (no block in its name) runs alone
  assert.deepEqual(splitIntoPasses(['SQ_WAVES', 'GPUBusy', 'GRBM_COUNT']), [['SQ_WAVES', 'GRBM_COUNT'], ['GPUBusy']]);
});

test('arch: rocminfo names and GPU names; a preset without an arch is refused with what to do', () => {
  assert.equal(supportedArch('gfx942'), 'gfx942');
  assert.equal(supportedArch('gfx941'), 'gfx942');
  assert.equal(supportedArch('gfx1100'), null);
  assert.deepEqual(['AMD Instinct MI300X', 'MI300', 'MI355X', 'AMD Instinct MI250X/MI250', 'CPU'].map(archOfGpuName), [
    'gfx942',
    'gfx942',
    'gfx950',
    'gfx90a',
    null,
  ]);
  assert.throws(
    () => counterPasses({ kind: 'preset', preset: 'roofline' }, null, 'CPU'),
    (e: unknown) => e instanceof CounterSetError && /name the counters instead/.test(e.message),
  );
  assert.deepEqual(counterPasses({ kind: 'list', counters: ['SQ_WAVES'] }, null, 'CPU'), [['SQ_WAVES']]);
  assert.deepEqual(counterPasses({ kind: 'off' }, 'gfx942', 'MI300'), []);
});

test('rocprofv3 command line: one --pmc per pass before the output flags; regex and window joined with = (a leading - stays a value)', async () => {
  const { ProfilerError, wrapCommand } = await import('../../../src/runner/profilers');
  const v3 = wrapCommand(
    { kind: 'rocprofv3', path: '/opt/rocm/bin/rocprofv3' },
    '/out',
    { command: 'python3', args: ['eval.py'] },
    {
      selection: { pmc: [['SQ_WAVES', 'TCC_HIT_sum'], ['GRBM_COUNT']], kernelRegex: '-x|gemm', launches: '[10-20]' },
    },
  );
  const at = v3.args.indexOf('--pmc');
  assert.deepEqual(v3.args.slice(at, v3.args.indexOf('--output-format')), [
    '--pmc',
    'SQ_WAVES',
    'TCC_HIT_sum',
    '--pmc',
    'GRBM_COUNT',
    '--kernel-include-regex=-x|gemm',
    '--kernel-iteration-range=[10-20]',
  ]);
  assert.deepEqual(v3.args.slice(v3.args.indexOf('--')), ['--', 'python3', 'eval.py']);
  // legacy rocprof has no such switches: refused rather than dropped
  assert.throws(
    () =>
      wrapCommand(
        { kind: 'rocprof', path: '/opt/rocm/bin/rocprof' },
        '/out',
        { command: 'x', args: [] },
        { selection: { pmc: [['SQ_WAVES']] } },
      ),
    ProfilerError,
  );
});
