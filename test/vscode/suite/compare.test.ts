// The compare panel: "Compare Two Profiles…" with two traces selected in the explorer (the command's (uri, uris)),
// on real rocprof fixtures and runs derived from them; what the webview drew comes back as its `rendered` report
// (the state round trip), checked against the trace toolkit's own comparison. Hostile kernel and range names
// arrive back as the literal text.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ComparePanel } from '../../../src/extension/comparePanel';
import { compareSummaries, summarizePath } from '../../../src/trace/index';
import { HOSTILE_NAMES } from '../hostile';
import { LAUNCHES, RANGES, writeRun, type Launch } from '../../unit/trace/rangeRuns';
import { activateExtension, repoRoot, waitFor } from './helpers';

const fixtures = resolve(repoRoot, '../shared/fixtures/rocprof');
const KERNEL_CSV = join(fixtures, 'rocm-systems__sdkdocs__kernel_trace.csv');

/** The fixture's run, changed: addition_kernel<float> became <double>, divide_kernel twice as slow, subtract_kernel gone, a new kernel. */
function derivedRun(text: string): string {
  const [header, ...rows] = text.trimEnd().split('\n');
  const out = [header as string];
  for (const row of rows) {
    if (row.includes('subtract_kernel')) continue;
    let r = row.replace('addition_kernel<float>', 'addition_kernel<double>');
    if (r.includes('divide_kernel')) {
      // the fields after the name: Correlation_Id, Start_Timestamp, End_Timestamp
      r = r.replace(
        /(divide_kernel\([^"]*\)",\d+,)(\d+),(\d+),/,
        (_m, head: string, s: string, e: string) => `${head}${s},${Number(s) + 2 * (Number(e) - Number(s))},`,
      );
    }
    out.push(r);
    if (row.includes('multiply_kernel'))
      out.push(row.replace(/"[^"]*multiply_kernel[^"]*"/, '"fused_epilogue(float*)"'));
  }
  return out.join('\n') + '\n';
}

const old = (path: string) => utimesSync(path, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));

describe('compare panel', function () {
  this.timeout(60_000);
  let tmp: string;
  const panels: ComparePanel[] = [];

  before(async () => {
    await activateExtension();
  });
  beforeEach(() => {
    tmp = mkdtempSync(join(tmpdir(), 'kr-compare-'));
  });
  afterEach(() => {
    for (const p of panels.splice(0)) p.dispose();
    rmSync(tmp, { recursive: true, force: true });
  });

  async function compareFromExplorer(a: string, b: string): Promise<ComparePanel> {
    // the explorer hands over the clicked resource and the whole selection, in list order: B first here
    const panel = await vscode.commands.executeCommand<ComparePanel | undefined>(
      'kernelRunner.compareTraces',
      vscode.Uri.file(b),
      [vscode.Uri.file(b), vscode.Uri.file(a)],
    );
    assert.ok(panel, 'a compare panel opened');
    panels.push(panel);
    await waitFor('the compare webview to draw', () => panel.rendered);
    return panel;
  }

  it('compares a real rocprofv3 CSV with a derived run: headline, kernel rows, marks and chart as drawn', async () => {
    const a = join(tmp, 'before_kernel_trace.csv');
    const b = join(tmp, 'after_kernel_trace.csv');
    copyFileSync(KERNEL_CSV, a);
    writeFileSync(b, derivedRun(readFileSync(KERNEL_CSV, 'utf8')));
    old(a);
    const panel = await compareFromExplorer(a, b);
    assert.deepEqual(
      panel.received.slice(0, 2),
      ['ready', 'rendered'],
      'the script ran under the CSP and spoke the protocol',
    );
    assert.equal(panel.current.a.path, a, 'the older selection is the baseline');
    assert.equal(panel.panel.title, 'Compare: before_kernel_trace.csv → after_kernel_trace.csv');

    const expected = compareSummaries(await summarizePath(a), await summarizePath(b), {
      a: 'before_kernel_trace.csv',
      b: 'after_kernel_trace.csv',
    });
    assert.deepEqual(panel.current.comparison.kernels, expected.kernels);
    const shown = panel.rendered;
    assert.ok(shown);
    assert.deepEqual(
      shown.kernels.map((k) => k.title.split('\n').pop()?.replace(/^B: /, '')),
      expected.kernels.map((k) => k.name),
      'one row per kernel, biggest change first',
    );
    const mark = (name: string) => shown.kernels.find((k) => k.title.endsWith(name))?.mark;
    assert.equal(
      mark('void addition_kernel<double>(float*, float const*, float const*, int, int)'),
      'paired by base name',
    );
    assert.equal(mark('subtract_kernel(float*, float const*, float const*, int, int)'), 'vanished');
    assert.equal(mark('fused_epilogue(float*)'), 'new');
    assert.equal(mark('multiply_kernel(float*, float const*, float const*, int, int)'), '');
    const pairedRow = shown.kernels.find((k) => k.title.includes('addition_kernel<double>'));
    assert.match(
      pairedRow?.title ?? '',
      /^A: void addition_kernel<float>.*\nB: void addition_kernel<double>/,
      'a row paired by base name names both full names',
    );

    const divide = expected.kernels.find((k) => k.name.startsWith('divide_kernel'));
    assert.equal(divide?.ratio, 2);
    assert.ok(
      shown.bars.some((l) => l.startsWith('divide_kernel: +') && l.includes('2.00× (+100%)')),
      `bars: ${shown.bars.join(' | ')}`,
    );
    assert.ok(
      shown.bars.some((l) => l.startsWith('fused_epilogue: +') && l.endsWith('(new in B)')),
      `bars: ${shown.bars.join(' | ')}`,
    );
    assert.equal(shown.bars.length, expected.kernels.filter((k) => k.deltaTotalNs !== 0).length);
    assert.match(shown.headline[0] ?? '', /^\S+ µs → \S+ µs/, `kernel time headline: ${shown.headline[0]}`);
    assert.match(
      shown.headline[3] ?? '',
      /^3 paired.*1 new · 1 vanished · 1 paired by base name/,
      `kernels headline: ${shown.headline[3]}`,
    );
    assert.deepEqual(shown.ranges, [], 'no rocTX ranges in these traces: no per-case sections');
  });

  it('compares the rocpd database with the rocprofv3 CSV: every kernel new or vanished', async () => {
    const db = join(tmp, 'batched_gemm.db');
    copyFileSync(join(fixtures, 'batched_gemm__28_results.db'), db);
    const csv = join(tmp, 'kernel_trace.csv');
    copyFileSync(KERNEL_CSV, csv);
    old(db);
    const panel = await compareFromExplorer(db, csv);
    assert.equal(panel.current.a.path, db);
    const shown = panel.rendered;
    assert.ok(shown);
    assert.deepEqual(shown.kernels.map((k) => k.mark).sort(), ['new', 'new', 'new', 'new', 'vanished', 'vanished']);
    assert.ok(shown.kernels.some((k) => k.text === 'ck_tile::kentry<1, BatchedGemmKernel<…>, BatchedGemmKernelArgs>'));
  });

  it('shows per-case deltas when both runs have rocTX ranges', async () => {
    const da = join(tmp, 'run-a');
    const db = join(tmp, 'run-b');
    mkdirSync(da);
    mkdirSync(db);
    writeRun(da);
    const slower: Launch[] = LAUNCHES.map((l) => ({ ...l, gpu: [l.gpu[0], l.gpu[0] + (l.gpu[1] - l.gpu[0]) * 2] }));
    writeRun(db, { launches: slower });
    old(da);
    const panel = await compareFromExplorer(da, db);
    const ranges = panel.current.comparison.ranges;
    assert.ok(ranges?.length, 'both runs have ranges');
    const withKernels = ranges.filter((r) => (r.a?.kernelCalls ?? 0) + (r.b?.kernelCalls ?? 0) > 0).map((r) => r.name);
    assert.deepEqual(panel.rendered?.ranges, withKernels);
    assert.ok(withKernels.includes('benchmark 0: n: 1024; seed: 1'));
    assert.ok(
      panel.rendered?.kernels.every((k) => k.mark === ''),
      'same kernels on both sides',
    );
  });

  it('hostile kernel and range names come back as the literal text, and unknown messages do nothing', async () => {
    const da = join(tmp, 'hostile-a');
    const db = join(tmp, 'hostile-b');
    mkdirSync(da);
    mkdirSync(db);
    const rename = (ls: Launch[], names: string[]) =>
      ls.map((l, i) => ({ ...l, kernel: names[i % names.length] as string }));
    const hostileRanges = RANGES.map(
      ([name, ...rest], i) =>
        [i === 0 ? `${name} <img src=x onerror=alert(1)>` : name, ...rest] as (typeof RANGES)[number],
    );
    writeRun(da, { launches: rename(LAUNCHES, HOSTILE_NAMES.slice(0, 3)), ranges: hostileRanges });
    writeRun(db, { launches: rename(LAUNCHES, HOSTILE_NAMES.slice(1)), ranges: hostileRanges });
    old(da);
    const panel = await compareFromExplorer(da, db);
    const shown = panel.rendered;
    assert.ok(shown);
    const expected = panel.current.comparison.kernels;
    assert.deepEqual(
      shown.kernels.map((k) => k.text),
      expected.map((k) => k.shortName || k.name),
      'short names shown as text, markup and all',
    );
    for (const name of HOSTILE_NAMES)
      assert.ok(
        shown.kernels.some((k) => k.title.includes(name)),
        `full name kept literally: ${name.slice(0, 50)}`,
      );
    assert.ok(
      shown.kernels.some((k) => k.text.startsWith('<script>')),
      'a name with a script tag is shown, not run',
    );
    assert.ok(shown.ranges.includes('benchmark 0: n: 1024; seed: 1 <img src=x onerror=alert(1)>'));
    assert.ok(
      shown.bars.some((l) => l.includes('"><img src=x onerror=')),
      'bar labels keep the markup as text',
    );
    const before = panel.received.length;
    await panel.handleMessage({ method: 'eval', params: { code: 'process.exit(1)' } });
    await panel.handleMessage({ method: 'revealSide', params: { side: '../../etc/passwd' } });
    await panel.handleMessage('ready');
    assert.equal(panel.rendered, shown, 'nothing redrawn or replaced');
    assert.equal(panel.received.length, before + 3);
  });
  it('draws an A → B roofline arrow per kernel when both sides are counter workloads', async () => {
    const a = join(tmp, 'counters-a');
    const b = join(tmp, 'counters-b');
    cpSync(join(repoRoot, 'test/fixtures/roofline/mi300x-wide'), a, { recursive: true });
    cpSync(join(repoRoot, 'test/fixtures/roofline/mi300x-wide'), b, { recursive: true });
    old(a);
    const panel = await compareFromExplorer(a, b);
    const expected = (await summarizePath(b)).roofline;
    assert.ok(expected && expected.kernels.length === 2);
    assert.deepEqual(panel.current.rooflines?.b, expected, "the host hands both sides' rooflines to the page");
    const arrows = panel.rendered?.rooflineArrows ?? [];
    assert.equal(arrows.length, expected.kernels.length, `an arrow per kernel: ${arrows.join(' | ')}`);
    for (const k of expected.kernels) {
      const short = panel.current.comparison.roofline?.find((d) => d.name === k.name)?.shortName ?? k.name;
      assert.ok(
        arrows.some(
          (l) => l.startsWith(`${short}: A AI `) && l.includes(' → B AI ') && l.endsWith('GFLOP/s B / A 1.00× (±0%)'),
        ),
        `${short}: ${arrows.join(' | ')}`,
      );
    }
  });
});
