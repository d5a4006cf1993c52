// The compare page's roofline: when both traces read hardware counters, each kernel's HBM point in A joined to its
// point in B by an arrow, on B's ceilings (DOM only, as roofline.ts, whose frame and keyboard walk it shares).
// Kernels are paired as the comparison paired them (its `roofline`: a kernel whose template arguments changed is
// one kernel); the sides' rooflines give the ceilings.
import type { Roofline } from '../core/protocol/roofline';
import type { RooflineDelta, RooflinePoint, TraceComparison } from '../core/protocol/traceComparison';
import { formatFlopRate, formatIntensity, formatRoofPercent } from '../core/format/index';
import { dataTable, h, svg, type Child } from './dom';
import { formatCount, formatRatio } from './format';
import { COLOURS, rooflineCeilings, TOP_KERNELS } from './rooflineModel';
import { rooflineFrame, walkWithKeys, type WalkMark } from './roofline';
import { plottable } from './rooflineScale';

const point = (k: RooflinePoint | null): { x: number; y: number } | null =>
  k && plottable(k.aiHbm) && plottable(k.gflopsPerSecond) ? { x: k.aiHbm, y: k.gflopsPerSecond } : null;

function side(k: RooflinePoint | null): string {
  if (!k) return 'no counters';
  const roof = k.percentOfRoof === null ? '' : `, ${formatRoofPercent(k.percentOfRoof)} of roof`;
  return `AI ${formatIntensity(k.aiHbm)}, ${formatFlopRate(k.gflopsPerSecond)}${k.bound ? ` (${k.bound}-bound${roof})` : ''}`;
}

function arrowLabel(p: RooflineDelta): string {
  const ratio =
    p.a?.gflopsPerSecond && p.b?.gflopsPerSecond !== null && p.b?.gflopsPerSecond !== undefined
      ? ` · GFLOP/s B / A ${formatRatio(p.b.gflopsPerSecond / p.a.gflopsPerSecond)}`
      : '';
  return `${label(p)}: A ${side(p.a)} → B ${side(p.b)}${ratio}`;
}

const label = (p: RooflineDelta): string => p.shortName || p.name;

/** The head of an arrow ending at (x2, y2) coming from (x1, y1), as a path. */
function arrowHead(x1: number, y1: number, x2: number, y2: number, size = 8): string {
  const a = Math.atan2(y2 - y1, x2 - x1);
  const f = (n: number) => n.toFixed(1);
  const p = (t: number) => `${f(x2 - size * Math.cos(a + t))} ${f(y2 - size * Math.sin(a + t))}`;
  return `M${f(x2)} ${f(y2)}L${p(0.45)}L${p(-0.45)}Z`;
}

export function renderCompareRoofline(
  c: TraceComparison,
  rooflines: { a: Roofline | null; b: Roofline | null } | undefined,
): HTMLElement | null {
  if (!rooflines || (!rooflines.a && !rooflines.b)) return null;
  const title = h('h2', {}, 'Roofline, A → B');
  const { a: ra, b: rb } = rooflines;
  if (!ra || !rb)
    return h(
      'section',
      { class: 'roofline-compare' },
      title,
      h(
        'p',
        { class: 'note' },
        `Only ${ra ? 'A' : 'B'} read hardware counters: the roofline change needs them on both sides.`,
      ),
    );
  const pairs = (c.roofline ?? []).slice(0, TOP_KERNELS);
  const both = pairs.filter((p) => point(p.a) && point(p.b));
  const { ceilings, unknown } = rooflineCeilings({ ...rb, kernels: [...rb.kernels, ...ra.kernels], ranges: [] });
  const readout = h(
    'p',
    { class: 'roofline-readout', role: 'status', 'aria-live': 'polite' },
    'Hover an arrow, or focus the chart and use the arrow keys, for its numbers.',
  );
  const pts = both.flatMap((p) => [point(p.a)!, point(p.b)!]);
  const frame = rooflineFrame(
    pts,
    ceilings,
    `Roofline change, A to B: ${both.length} kernels, HBM intensity against performance, both on log scales`,
  );
  const layer = svg('g', { class: 'roofline-arrows' });
  const marks: WalkMark[] = [];
  both.forEach((p, i) => {
    const a = point(p.a)!;
    const b = point(p.b)!;
    const [x1, y1, x2, y2] = [frame.sx(a.x), frame.sy(a.y), frame.sx(b.x), frame.sy(b.y)];
    const label = arrowLabel(p);
    // the line stops short of B's dot so the head stays visible
    const len = Math.hypot(x2 - x1, y2 - y1);
    const cut = len > 12 ? 6 / len : 0;
    const ex = x2 - (x2 - x1) * cut;
    const ey = y2 - (y2 - y1) * cut;
    const g = svg(
      'g',
      { class: `roof-arrow colour-${i % COLOURS}`, role: 'img', 'aria-label': label, 'data-kernel': p.name },
      svg('title', {}, `${label}\n${p.name}`),
      svg('line', { class: 'arrow-line', x1: x1.toFixed(1), y1: y1.toFixed(1), x2: ex.toFixed(1), y2: ey.toFixed(1) }),
      len > 12 ? svg('path', { class: 'arrow-head', d: arrowHead(x1, y1, ex, ey) }) : null,
      svg('circle', { class: 'pt-mark pt-a', cx: x1.toFixed(1), cy: y1.toFixed(1), r: 4.5 }),
      svg('circle', { class: 'pt-mark pt-b', cx: x2.toFixed(1), cy: y2.toFixed(1), r: 5.5 }),
    );
    marks.push({ el: g, text: label, px: x2 });
    layer.append(g);
  });
  frame.root.append(layer);
  walkWithKeys(frame.root, marks, readout);
  const notDrawn = pairs.filter((p) => !(point(p.a) && point(p.b)));
  const differ = (Object.keys(rb.peaks) as Array<keyof Roofline['peaks']>).filter((k) => ra.peaks[k] !== rb.peaks[k]);
  const children: Child[] = [
    h(
      'p',
      { class: 'note' },
      "Each kernel's HBM point in A (hollow) joined to its point in B (filled) by an arrow; ceilings are B's.",
    ),
    differ.length
      ? h('p', { class: 'note' }, `A's peaks differ from B's (${differ.join(', ')}): the ceilings drawn are B's.`)
      : null,
    ...unknown.map((u) =>
      h('p', { class: 'note roofline-unknown' }, `${u.label} ceiling not drawn: its peak is unknown (${u.why}).`),
    ),
    both.length
      ? h('figure', { class: 'roofline roofline-compare-figure' }, frame.root, readout)
      : h('p', { class: 'note' }, 'No kernel has a point on both sides.'),
    notDrawn.length
      ? h(
          'p',
          { class: 'note roofline-skipped' },
          `Not drawn (no point on one side: no counters, no FLOPs, or a value a log scale cannot show): ${notDrawn.map((p) => `${label(p)} (A ${p.a ? 'has' : 'lacks'} counters, B ${p.b ? 'has' : 'lacks'} them)`).join('; ')}.`,
        )
      : null,
    h(
      'details',
      { class: 'chart-data roofline-data' },
      h('summary', {}, 'The chart as a table'),
      dataTable(
        'Roofline points, A and B (HBM)',
        [
          'kernel',
          'A AI',
          'A GFLOP/s',
          'A bound',
          'A % of roof',
          'B AI',
          'B GFLOP/s',
          'B bound',
          'B % of roof',
          'GFLOP/s B / A',
        ],
        pairs.map((p) => ({
          attrs: { 'data-kernel': p.name },
          cells: [
            h(
              'span',
              { class: 'kernel-name', title: p.aName ? `A: ${p.aName}\nB: ${p.name}` : p.name, tabindex: 0 },
              label(p),
            ),
            formatIntensity(p.a?.aiHbm),
            formatFlopRate(p.a?.gflopsPerSecond),
            p.a?.bound ?? '–',
            formatRoofPercent(p.a?.percentOfRoof),
            formatIntensity(p.b?.aiHbm),
            formatFlopRate(p.b?.gflopsPerSecond),
            p.b?.bound ?? '–',
            formatRoofPercent(p.b?.percentOfRoof),
            p.a?.gflopsPerSecond && p.b && p.b.gflopsPerSecond !== null
              ? formatRatio(p.b.gflopsPerSecond / p.a.gflopsPerSecond)
              : '–',
          ],
        })),
        'roofline-compare-table',
      ),
    ),
    h(
      'p',
      { class: 'note' },
      `${formatCount(both.length)} of ${formatCount(pairs.length)} kernels have a point on both sides.`,
    ),
  ];
  return h('section', { class: 'roofline-compare' }, title, ...children);
}
