// The heat marks' words and levels (src/core/hotspotHeat.ts): hints, hover breakdowns, levels scaled to the
// hottest mark, several kernels on one line, file matching by name, and hostile names kept out of Markdown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { disassemblyHeat, sourceHeat } from '../../../src/core/hotspotHeat';
import type { KernelHotspots } from '../../../src/core/protocol/pcSampling';
import { hotspotsOf } from '../../support/pcHotspots';

const site = { meanActiveLanes: 64, stalls: {}, types: {} };
function kernel(
  name: string,
  samples: number,
  lines: Array<[string, number, number, Record<string, number>]>,
): KernelHotspots {
  return {
    name,
    shortName: name,
    samples,
    share: 1,
    meanActiveLanes: 64,
    issued: null,
    stalls: {},
    types: {},
    withoutLine: 0,
    unknownCode: 0,
    lines: lines.map(([file, line, n, stalls]) => ({ ...site, file, line, samples: n, share: n / samples, stalls })),
    linesTotal: lines.length,
    instructions: [],
    instructionsTotal: 0,
  };
}

test('source heat: hint with the top stall, levels scaled to the hottest line, hover with the breakdown', () => {
  const k = kernel('k', 100, [
    ['/remote/x/kern.hip', 12, 62, { WAITCNT: 40, ALU_DEPENDENCY: 10 }],
    ['/remote/x/kern.hip', 20, 6, {}],
    ['/remote/x/other.hip', 3, 32, {}],
  ]);
  const marks = sourceHeat([hotspotsOf([k])], '/home/me/kern.hip');
  assert.deepEqual(
    marks.map((m) => [m.line, m.hint, m.level]),
    [
      [12, '62% · waitcnt', 5],
      [20, '6.0%', 1],
    ],
  );
  assert.equal(
    marks[0]!.hover[0],
    '**62%** of the PC samples of k on line 12: 62 of 100, mean active lanes 64.0 of 64',
  );
  assert.equal(marks[0]!.hover[1], 'Stalled on: waitcnt 40 \\(80%\\), alu dependency 10 \\(20%\\)');
});

test('a line two kernels sampled: the kernel with more samples there gives the hint, the hover names both', () => {
  const a = kernel('a', 10, [['k.hip', 5, 2, { BARRIER_WAIT: 2 }]]);
  const b = kernel('b', 100, [['k.hip', 5, 30, { WAITCNT: 30 }]]);
  const [m] = sourceHeat([hotspotsOf([a, b])], 'k.hip');
  assert.equal(m!.hint, '30% · waitcnt');
  assert.equal(m!.hover.filter((l) => l.startsWith('**')).length, 2);
});

test('hostile kernel names cannot become Markdown links or HTML in the hover', () => {
  const k = kernel('[x](command:evil) <img src=x>', 10, [['k.hip', 1, 10, {}]]);
  const [m] = sourceHeat([hotspotsOf([k])], 'k.hip');
  // every bracket and angle bracket of the name comes escaped: no link, no tag
  assert.ok(!/(^|[^\\])[[\]()<>]/.test(m!.hover[0]!.replace(/^\*\*100%\*\*/, '')), m!.hover[0]);
  assert.match(m!.hover[0]!, /\\\[x\\\]\\\(command:evil\\\) \\<img src=x\\>/);
});

test('disassembly heat: a waitcnt stall on s_waitcnt names its counters; rows by offset win over text', () => {
  const listing = [
    { row: 3, offset: 0x10, text: 's_waitcnt vmcnt(0) lgkmcnt(0)', file: 'k.hip', line: 4 },
    { row: 4, offset: 0x14, text: 'v_add_u32_e32 v0, v0, v1', file: 'k.hip', line: 4 },
    { row: 6, offset: 0x18, text: 'v_add_u32_e32 v0, v0, v1', file: 'k.hip', line: 5 },
  ];
  const k: KernelHotspots = {
    ...kernel('k', 100, []),
    instructions: [
      {
        ...site,
        codeObject: null,
        offset: null,
        text: 's_waitcnt  vmcnt(0) lgkmcnt(0)',
        file: 'k.hip',
        line: 4,
        samples: 12,
        share: 0.12,
        stalls: { WAITCNT: 12 },
      },
      {
        ...site,
        codeObject: 0,
        offset: 0x18,
        text: 'v_add_u32_e32 v0, v0, v1',
        file: 'k.hip',
        line: 5,
        samples: 3,
        share: 0.03,
      },
    ],
  };
  assert.deepEqual(
    disassemblyHeat(listing, k).map((m) => [m.line, m.hint]),
    [
      [3, '12% · waitcnt vmcnt lgkmcnt'],
      [6, '3.0%'],
    ],
  );
});
