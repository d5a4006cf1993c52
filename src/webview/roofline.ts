// The profile's "Roofline" and "Speed of light" sections, built with DOM APIs only (dom.ts: text nodes, no markup
// from data). The chart is an inline SVG on log-log axes: the HBM, L2, L1 and LDS bandwidth slopes, the compute
// ceilings of the data types the kernels use, and a point per kernel (per benchmark case with ranges) and memory
// level. Each point has a <title> for the mouse; the chart is one tab stop whose arrow keys move between points,
// the focused point's numbers read out below it. The same numbers are in a table behind the chart.
import type { Roofline, RooflineKernel, SolKernel, SolMetric, SolValue, SpeedOfLight } from '../core/protocol/roofline';
import type { TraceSummary } from '../core/protocol/traceSummary';
import { formatFlopRate, formatIntensity, formatPeakBandwidth, formatRoofPercent } from '../core/format/index';
import { percentBar } from './bars';
import { dataTable, h, svg, type Child } from './dom';
import { formatCount, formatCounterValue, formatNs, formatPercent } from './format';
import {
  LEVELS,
  TOP_KERNELS,
  missingNotes,
  rooflineCeilings,
  rooflinePoints,
  rooflineRows,
  type ChartPoint,
  type ChartRow,
  type Level,
  type SkippedPoint,
} from './rooflineModel';
import {
  ceilingSegments,
  decadeLabel,
  decadeTicks,
  logScale,
  rooflineDomains,
  type Ceiling,
  type CeilingSegment,
} from './rooflineScale';

const W = 760;
const H = 440;
const M = { left: 64, right: 18, top: 14, bottom: 50 };

const levelLabel = (l: Level): string => LEVELS.find((x) => x.level === l)?.label ?? l;

/** The kernel's name as the chart and its table show it (the summary's short name when the trace has the kernel). */
type ShortNames = ReadonlyMap<string, string>;

function shortOf(names: ShortNames, k: RooflineKernel): string {
  return names.get(k.name) || k.name;
}

const boundText = (k: RooflineKernel): string => (k.bound === null ? 'bound unknown' : `${k.bound}-bound`);

function pointLabel(row: ChartRow, p: ChartPoint, names: ShortNames): string {
  const k = row.kernel;
  const where = row.range === null ? '' : ` · ${row.range}`;
  const roof = k.percentOfRoof === null ? '' : `, ${formatRoofPercent(k.percentOfRoof)} of roof`;
  return `${shortOf(names, k)}${where} · ${levelLabel(p.level)}: AI ${formatIntensity(p.x)}, ${formatFlopRate(p.y)} · ${boundText(k)}${roof}`;
}

/** The "Roofline" and "Speed of light" sections of a summary, or null when it has neither. */
export function renderRooflineSections(s: TraceSummary): HTMLElement | null {
  if (!s.roofline && !s.speedOfLight) return null;
  const names: ShortNames = new Map(s.kernels.map((k) => [k.name, k.shortName]));
  return h(
    'div',
    { class: 'roofline-sections' },
    s.roofline ? renderRoofline(s.roofline, names) : null,
    s.speedOfLight ? renderSpeedOfLight(s.speedOfLight, names) : null,
  );
}

function peaksNote(r: Roofline): string {
  const from =
    r.peaksFrom === 'roofline.csv'
      ? "measured by AMD's roofline microbenchmark (roofline.csv)"
      : "the GPU's specification, computed from its clocks and CU count as rocprof-compute does";
  const arch = r.source.arch ? ` on ${r.source.arch}` : '';
  return `Peaks: ${from}. Counters read from ${r.source.path} (${r.source.format}${arch}).`;
}

function renderRoofline(r: Roofline, names: ShortNames): HTMLElement {
  const rows = rooflineRows(r);
  const { points, skipped } = rooflinePoints(rows);
  const { ceilings, unknown } = rooflineCeilings(r);
  const figure = h('figure', { class: 'roofline show-hbm', 'data-peaks-from': r.peaksFrom });
  const readout = h(
    'p',
    { class: 'roofline-readout', role: 'status', 'aria-live': 'polite' },
    'Hover a point, or focus the chart and use the arrow keys, for its numbers.',
  );
  figure.append(
    levelToggles(figure),
    chart(rows, points, ceilings, names, readout),
    readout,
    legend(rows, names),
    h(
      'figcaption',
      { class: 'note' },
      `Log-log roofline: ${rows.length} ${r.ranges.length ? 'kernel × case rows' : 'kernels'}, ${ceilings.length} ceiling${ceilings.length === 1 ? '' : 's'}. FP32 ceilings are always drawn (the bound is judged against them); other data types when a kernel uses them.`,
    ),
  );
  return h(
    'section',
    { class: 'roofline-section' },
    h('h3', {}, 'Roofline'),
    h('p', { class: 'note' }, peaksNote(r)),
    ...unknown.map((u) =>
      h(
        'p',
        { class: 'note roofline-unknown', 'data-unknown-ceiling': u.label },
        `${u.label} ceiling not drawn: its peak is unknown (${u.why}).`,
      ),
    ),
    ...missingNotes(r.missing).map((m) => h('p', { class: 'note roofline-missing' }, m)),
    rows.length ? figure : h('p', { class: 'note' }, 'No kernel has counter data.'),
    skipped.length ? skippedNote(rows, skipped, points.length, names) : null,
    rows.length ? chartTable(rows, names) : null,
  );
}

/** Which memory levels' points show: HBM at first (the bound is judged there), the others at will. */
function levelToggles(figure: HTMLElement): HTMLElement {
  return h(
    'fieldset',
    { class: 'roofline-levels' },
    h('legend', {}, 'Points at'),
    ...LEVELS.map((l) => {
      const box = h('input', { type: 'checkbox', 'data-level': l.level, checked: l.level === 'hbm' });
      box.addEventListener('change', () => figure.classList.toggle(`show-${l.level}`, box.checked));
      return h(
        'label',
        { class: `level-toggle level-${l.level}` },
        box,
        marker(l.level, 7, 7, 5, 'legend-marker'),
        ` ${l.label}`,
      );
    }),
  );
}

/** A point's mark: circle (HBM), square (L2), triangle (L1), diamond (LDS). */
function marker(level: Level, x: number, y: number, r: number, cls: string): SVGElement {
  const f = (n: number) => n.toFixed(1);
  const mark = (() => {
    switch (level) {
      case 'hbm':
        return svg('circle', { class: cls, cx: f(x), cy: f(y), r });
      case 'l2':
        return svg('rect', { class: cls, x: f(x - r * 0.9), y: f(y - r * 0.9), width: f(r * 1.8), height: f(r * 1.8) });
      case 'l1':
        return svg('path', {
          class: cls,
          d: `M${f(x)} ${f(y - r * 1.1)}L${f(x + r)} ${f(y + r * 0.75)}L${f(x - r)} ${f(y + r * 0.75)}Z`,
        });
      case 'lds':
        return svg('path', {
          class: cls,
          d: `M${f(x)} ${f(y - r * 1.2)}L${f(x + r * 1.2)} ${f(y)}L${f(x)} ${f(y + r * 1.2)}L${f(x - r * 1.2)} ${f(y)}Z`,
        });
    }
  })();
  if (cls === 'legend-marker') {
    const icon = svg('svg', {
      class: 'legend-icon',
      viewBox: '0 0 14 14',
      width: 14,
      height: 14,
      'aria-hidden': 'true',
    });
    icon.append(mark);
    return icon;
  }
  return mark;
}

function ceilingLabel(c: CeilingSegment): string {
  return c.kind === 'bandwidth'
    ? `${c.label} ${formatPeakBandwidth(c.value)}`
    : `${c.label} ${formatFlopRate(c.value)}`;
}

export interface RooflineFrame {
  root: SVGSVGElement;
  sx: (v: number) => number;
  sy: (v: number) => number;
}

/**
 * The chart without its points: an SVG with log-log axes that hold `points` and the ceilings, its grid, axis
 * titles and the ceilings (equal ones sharing a line and a label). The compare page draws its arrows on it too.
 */
export function rooflineFrame(
  points: ReadonlyArray<{ x: number | null; y: number | null }>,
  ceilings: Ceiling[],
  label: string,
): RooflineFrame {
  const dom = rooflineDomains(points, ceilings);
  const x0 = M.left;
  const x1 = W - M.right;
  const y0 = H - M.bottom;
  const y1 = M.top;
  const sx = logScale(dom.x, [x0, x1]);
  const sy = logScale(dom.y, [y0, y1]);
  const f = (n: number) => n.toFixed(1);
  const root = svg('svg', {
    class: 'roofline-chart',
    viewBox: `0 0 ${W} ${H}`,
    role: 'group',
    'aria-label': label,
    tabindex: points.length ? 0 : null,
    'aria-roledescription': 'chart',
  });
  // grid and axes
  const grid = svg('g', { class: 'roofline-grid', 'aria-hidden': 'true' });
  for (const t of decadeTicks(dom.x)) {
    grid.append(svg('line', { class: 'grid-line', x1: f(sx(t)), x2: f(sx(t)), y1: y1, y2: y0 }));
    grid.append(svg('text', { class: 'tick-label', x: f(sx(t)), y: y0 + 16, 'text-anchor': 'middle' }, decadeLabel(t)));
  }
  for (const t of decadeTicks(dom.y)) {
    grid.append(svg('line', { class: 'grid-line', x1: x0, x2: x1, y1: f(sy(t)), y2: f(sy(t)) }));
    grid.append(
      svg(
        'text',
        { class: 'tick-label', x: x0 - 6, y: f(sy(t)), 'text-anchor': 'end', 'dominant-baseline': 'central' },
        decadeLabel(t),
      ),
    );
  }
  grid.append(svg('rect', { class: 'plot-frame', x: x0, y: y1, width: x1 - x0, height: y0 - y1 }));
  grid.append(
    svg(
      'text',
      { class: 'axis-title', x: (x0 + x1) / 2, y: H - 8, 'text-anchor': 'middle' },
      'Arithmetic intensity (FLOP/byte)',
    ),
  );
  grid.append(
    svg(
      'text',
      {
        class: 'axis-title',
        x: 14,
        y: (y0 + y1) / 2,
        'text-anchor': 'middle',
        transform: `rotate(-90 14 ${(y0 + y1) / 2})`,
      },
      'Performance (GFLOP/s)',
    ),
  );
  root.append(grid);

  // ceilings: those of the same value share one line and one label
  const segs = ceilingSegments(ceilings, dom.x);
  const ceil = svg('g', { class: 'roofline-ceilings' });
  const groups = (kind: CeilingSegment['kind']): CeilingSegment[][] => {
    const out: CeilingSegment[][] = [];
    for (const c of segs.filter((x) => x.kind === kind).sort((a, b) => b.value - a.value)) {
      const same = out.find((g) => Math.abs(g[0]!.value - c.value) <= 1e-3 * c.value);
      if (same) same.push(c);
      else out.push([c]);
    }
    return out;
  };
  let lastLabelY = -Infinity;
  for (const group of groups('compute')) {
    const c = group[0]!;
    const label = group.map((g) => g.label).join(' · ') + ` ${formatFlopRate(c.value)}`;
    const y = sy(c.value);
    // a label too close to the one above goes under its line
    const below = y - lastLabelY < 14;
    lastLabelY = below ? y + 12 : y;
    ceil.append(
      svg(
        'g',
        {
          class: `ceiling ceiling-compute ${group.some((g) => g.key.startsWith('mfma')) ? 'ceiling-mfma' : 'ceiling-valu'}`,
          'data-ceiling': group.map((g) => g.key).join(' '),
          role: 'img',
          'aria-label': label,
        },
        svg('title', {}, group.map(ceilingLabel).join('\n')),
        svg('line', { class: 'ceiling-line', x1: f(sx(c.x1)), y1: f(y), x2: f(sx(c.x2)), y2: f(y) }),
        svg(
          'text',
          { class: 'ceiling-label', x: f(x1 - 4), y: f(below ? y + 12 : y - 4), 'text-anchor': 'end' },
          label,
        ),
      ),
    );
  }
  groups('bandwidth').forEach((group, i) => {
    const c = group[0]!;
    const label = group.map((g) => g.label).join(' · ') + ` ${formatPeakBandwidth(c.value)}`;
    const px1 = sx(c.x1);
    const py1 = sy(c.y1);
    const px2 = sx(c.x2);
    const py2 = sy(c.y2);
    const angle = (Math.atan2(py2 - py1, px2 - px1) * 180) / Math.PI;
    // the label rides its slope above the line; the slopes are parallel, so each label starts further right than
    // the one above it and close slopes keep their labels apart
    const len = Math.max(1, Math.hypot(px2 - px1, py2 - py1));
    const t = Math.min(0.6, (12 + i * 130) / len);
    const lx = px1 + (px2 - px1) * t;
    const ly = py1 + (py2 - py1) * t - 4;
    const level = LEVELS.find((l) => l.peak === c.key)?.level ?? 'hbm';
    ceil.append(
      svg(
        'g',
        {
          class: `ceiling ceiling-bandwidth ceiling-${level}`,
          'data-ceiling': group.map((g) => g.key).join(' '),
          role: 'img',
          'aria-label': label,
        },
        svg('title', {}, group.map(ceilingLabel).join('\n')),
        svg('line', { class: 'ceiling-line', x1: f(px1), y1: f(py1), x2: f(px2), y2: f(py2) }),
        svg(
          'text',
          { class: 'ceiling-label', x: f(lx), y: f(ly), transform: `rotate(${angle.toFixed(2)} ${f(lx)} ${f(ly)})` },
          label,
        ),
      ),
    );
  });
  root.append(ceil);
  return { root, sx, sy };
}

function chart(
  rows: ChartRow[],
  points: ChartPoint[],
  ceilings: Ceiling[],
  names: ShortNames,
  readout: HTMLElement,
): SVGSVGElement {
  const { root, sx, sy } = rooflineFrame(
    points,
    ceilings,
    `Roofline chart: ${points.length} points, arithmetic intensity against performance, both on log scales`,
  );
  // points, HBM last so that it is drawn on top
  const layer = svg('g', { class: 'roofline-points' });
  const order: Level[] = ['lds', 'l1', 'l2', 'hbm'];
  const marks: Array<{ el: SVGGElement; text: string; level: Level; px: number }> = [];
  for (const level of order) {
    for (const p of points.filter((q) => q.level === level)) {
      const row = rows[p.row]!;
      const text = pointLabel(row, p, names);
      const g = svg(
        'g',
        {
          class: `pt pt-${p.level} colour-${row.colour}`,
          'data-point': p.id,
          'data-kernel': row.kernel.name,
          'data-range': row.range,
          role: 'img',
          'aria-label': text,
        },
        svg('title', {}, `${text}\n${row.kernel.name}`),
        marker(p.level, sx(p.x as number), sy(p.y as number), p.level === 'hbm' ? 5.5 : 4.5, 'pt-mark'),
        // per case, the case's number beside its point (the legend says which case it is)
        row.caseNo !== null
          ? svg(
              'text',
              {
                class: 'pt-case',
                x: (sx(p.x as number) + 7).toFixed(1),
                y: (sy(p.y as number) - 6).toFixed(1),
                'aria-hidden': 'true',
              },
              String(row.caseNo),
            )
          : null,
      );
      marks.push({ el: g, text, level, px: sx(p.x as number) });
      layer.append(g);
    }
  }
  root.append(layer);
  walkWithKeys(
    root,
    marks,
    readout,
    (m) => root.closest('figure')?.classList.contains(`show-${m.level}`) ?? m.level === 'hbm',
  );
  return root;
}

/** A mark the keyboard can walk to: its element, what the readout says for it, and its x (the walking order). */
export interface WalkMark<T = unknown> {
  el: SVGElement;
  text: string;
  px: number;
  data?: T;
}

/**
 * The chart as one tab stop: on focus the leftmost shown mark is selected, the arrow keys (Home, End) walk the
 * shown marks left to right, wrapping round, and the readout says the selected one's numbers.
 */
export function walkWithKeys<M extends WalkMark>(
  root: SVGSVGElement,
  marks: M[],
  readout: HTMLElement,
  isShown: (m: M) => boolean = () => true,
): void {
  const shown = () => marks.filter(isShown).sort((a, b) => a.px - b.px);
  let at = -1;
  const select = (i: number) => {
    const list = shown();
    if (!list.length) return;
    at = (i + list.length) % list.length;
    for (const m of marks) m.el.classList.remove('pt-active');
    const m = list[at]!;
    m.el.classList.add('pt-active');
    readout.textContent = m.text;
  };
  const keys: Record<string, () => void> = {
    ArrowRight: () => select(at + 1),
    ArrowDown: () => select(at + 1),
    ArrowLeft: () => select(at - 1),
    ArrowUp: () => select(at - 1),
    Home: () => select(0),
    End: () => select(-1),
  };
  root.addEventListener('keydown', (e) => {
    const go = keys[e.key];
    if (!go) return;
    e.preventDefault();
    go();
  });
  root.addEventListener('focus', () => {
    if (at < 0) select(0);
  });
  for (const m of marks) m.el.addEventListener('mouseenter', () => (readout.textContent = m.text));
}

function legend(rows: ChartRow[], names: ShortNames): HTMLElement {
  const seen = new Map<string, ChartRow>();
  const cases = new Map<number, string>();
  for (const r of rows) {
    if (!seen.has(r.kernel.name)) seen.set(r.kernel.name, r);
    if (r.caseNo !== null && r.range !== null) cases.set(r.caseNo, r.range);
  }
  const kernels = h(
    'ul',
    { class: 'roofline-legend', 'aria-label': 'Kernels' },
    ...[...seen.values()].map((r) =>
      h(
        'li',
        { title: r.kernel.name },
        h('span', { class: `swatch colour-${r.colour}`, 'aria-hidden': 'true' }),
        h('span', { class: 'kernel-name' }, shortOf(names, r.kernel)),
      ),
    ),
  );
  if (!cases.size) return kernels;
  return h(
    'div',
    {},
    kernels,
    h(
      'ul',
      { class: 'roofline-legend roofline-cases', 'aria-label': 'Benchmark cases' },
      ...[...cases].map(([no, name]) =>
        h(
          'li',
          { 'data-case': no },
          h('span', { class: 'case-no' }, String(no)),
          h('span', { class: 'range-name' }, name),
        ),
      ),
    ),
  );
}

function skippedNote(rows: ChartRow[], skipped: SkippedPoint[], drawn: number, names: ShortNames): HTMLElement {
  // one entry per row without a FLOP rate; else one per level without an intensity
  const items: string[] = [];
  const byRow = new Map<number, SkippedPoint[]>();
  for (const s of skipped) byRow.set(s.row, [...(byRow.get(s.row) ?? []), s]);
  for (const [i, list] of byRow) {
    const row = rows[i]!;
    const who = `${shortOf(names, row.kernel)}${row.range === null ? '' : ` (${row.range})`}`;
    const y = list[0]!.y;
    if (!(typeof y === 'number' && Number.isFinite(y) && y > 0))
      items.push(`${who}: ${y === null ? 'no FLOP rate' : formatFlopRate(y, { missing: String(y) })}`);
    else
      items.push(
        `${who}: ${list.map((s) => `${levelLabel(s.level)} AI ${s.x === null ? 'unknown' : formatIntensity(s.x, { missing: String(s.x) })}`).join(', ')}`,
      );
  }
  const shown = items.slice(0, 8);
  return h(
    'p',
    { class: 'note roofline-skipped', 'data-skipped': skipped.length },
    `${formatCount(skipped.length)} of ${formatCount(skipped.length + drawn)} points are not drawn: a log scale has no place for zero, negative or unknown values. `,
    shown.join('; '),
    items.length > shown.length ? `; and ${items.length - shown.length} more` : '',
    '.',
  );
}

function chartTable(rows: ChartRow[], names: ShortNames): HTMLElement {
  const perCase = rows.some((r) => r.range !== null);
  return h(
    'details',
    { class: 'chart-data roofline-data' },
    h('summary', {}, 'The chart as a table'),
    dataTable(
      'Roofline points (means per dispatch)',
      [
        'kernel',
        ...(perCase ? ['case'] : []),
        'dispatches',
        'duration',
        'GFLOP/s',
        'AI HBM',
        'AI L2',
        'AI L1',
        'AI LDS',
        { label: 'bound', key: true },
        { label: '% of roof', key: true },
      ],
      rows.map((r) => ({
        attrs: { 'data-kernel': r.kernel.name, 'data-range': r.range },
        cells: [
          h('span', { class: 'kernel-name', title: r.kernel.name, tabindex: 0 }, shortOf(names, r.kernel)),
          ...(perCase ? [h('span', { class: 'range-name' }, r.range ?? '')] : []),
          formatCount(r.kernel.dispatches),
          formatNs(r.kernel.durationNs),
          formatFlopRate(r.kernel.gflopsPerSecond),
          formatIntensity(r.kernel.aiHbm),
          formatIntensity(r.kernel.aiL2),
          formatIntensity(r.kernel.aiL1),
          formatIntensity(r.kernel.aiLds),
          r.kernel.bound ?? '–',
          r.kernel.percentOfRoof === null
            ? '–'
            : percentBar(r.kernel.percentOfRoof, formatRoofPercent(r.kernel.percentOfRoof)),
        ],
      })),
      'roofline-table',
    ),
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Speed of light (rocprof-compute's block 2)

const OPEN_KERNELS = 3;

function solValue(v: SolValue, unit: string): string {
  if (v === 'inf') return '∞ (a zero-duration dispatch)';
  if (v === null) return '–';
  switch (unit) {
    case 'GFLOP/s':
      return formatFlopRate(v);
    case 'GIOP/s':
      return formatFlopRate(v).replace('FLOP/s', 'IOP/s');
    case 'GB/s':
      return formatPeakBandwidth(v);
    case 'Pct':
      return formatPercent(v);
    default:
      return `${formatCounterValue(v)} ${unit}`.trim();
  }
}

function solRows(metrics: SolMetric[], kernelCell?: Child): Child[][] {
  return metrics.map((m, i) => [
    ...(kernelCell === undefined ? [] : [i === 0 ? kernelCell : '']),
    m.metric,
    solValue(m.value, m.unit),
    m.peak === null ? '–' : solValue(m.peak, m.unit),
    m.percentOfPeak === 'inf' ? '∞' : m.percentOfPeak === null ? '–' : percentBar(m.percentOfPeak),
  ]);
}

function solKernel(k: SolKernel, names: ShortNames, open: boolean): HTMLElement {
  const name = names.get(k.name) || k.name;
  return h(
    'details',
    { class: 'sol-kernel', 'data-kernel': k.name, open },
    h(
      'summary',
      {},
      h('span', { class: 'kernel-name', title: k.name }, name),
      ` · ${formatCount(k.dispatches)} dispatch${k.dispatches === 1 ? '' : 'es'}`,
    ),
    dataTable(
      `Speed of light: ${name}`,
      ['metric', 'value', 'peak', { label: '% of peak', key: true }],
      solRows(k.metrics),
      'sol-table',
    ),
  );
}

function renderSpeedOfLight(sol: SpeedOfLight, names: ShortNames): HTMLElement {
  return h(
    'section',
    { class: 'sol-section' },
    h('h3', {}, 'Speed of light'),
    h(
      'p',
      { class: 'note' },
      'Averages over dispatches of each rate, and their share of the peak (rocprof-compute block 2, System Speed-of-Light).',
    ),
    ...missingNotes(sol.missing).map((m) => h('p', { class: 'note roofline-missing' }, m)),
    ...sol.kernels.slice(0, TOP_KERNELS).map((k, i) => solKernel(k, names, i < OPEN_KERNELS)),
    sol.ranges.length
      ? h(
          'details',
          { class: 'sol-ranges' },
          h('summary', {}, `Per case (${formatCount(sol.ranges.length)} rocTX ranges)`),
          ...sol.ranges.map((r) =>
            dataTable(
              `Speed of light in ${r.name}`,
              ['kernel', 'metric', 'value', 'peak', { label: '% of peak', key: true }],
              r.kernels
                .slice(0, TOP_KERNELS)
                .flatMap((k) =>
                  solRows(k.metrics, h('span', { class: 'kernel-name', title: k.name }, names.get(k.name) || k.name)),
                ),
              'sol-table',
            ),
          ),
        )
      : null,
  );
}
