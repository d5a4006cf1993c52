// Builds the compare page from a CompareView with DOM APIs only (see dom.ts): headline cards (kernel time A → B,
// ratio, busy and wall change), a chart of the biggest per-kernel changes (inline SVG, a title and an aria-label
// per bar, its numbers in a table too), the per-kernel table with new, vanished and base-name-paired kernels marked, and
// the roofline's A → B arrows when both sides read counters, the GPU-to-GPU copy pairs of a multi-GPU profile, and
// per-case (rocTX range) deltas when both sides have ranges.
import { cutPairChanges, gpuEndLabel, morePairsText, pairChangeMark } from '../core/format/index';
import type { AmountDelta, KernelDelta, PeerCopyDelta, RangeDelta } from '../core/protocol/traceComparison';
import type { CompareView } from './compareProtocol';
import { renderCompareRoofline } from './compareRoofline';
import { dataTable, h, svg, type Child, type TableRow } from './dom';
import { formatBytes, formatCount, formatNs, formatRatio, formatSignedNs } from './format';

export interface CompareActions {
  reveal(side: 'a' | 'b'): void;
}

const TOP_KERNELS = 40;
const TOP_BARS = 12;
const OPEN_CASES = 4;
/** An MI300x8 all-to-all has 56 pairs between GPUs and 8 within them. */
const TOP_PAIRS = 64;

/** `faster` / `slower` / `same` by the change of time (less time is better). */
function trend(deltaNs: number | null | undefined): 'faster' | 'slower' | 'same' {
  if (deltaNs === null || deltaNs === undefined || deltaNs === 0) return 'same';
  return deltaNs < 0 ? 'faster' : 'slower';
}

const MARKS: Record<KernelDelta['match'], { text: string; short: string; title: string }> = {
  exact: { text: '', short: '', title: '' },
  'short-name': {
    text: 'paired by base name',
    short: 'by base name',
    title: 'different full names (template arguments changed), paired by base name',
  },
  'a-only': { text: 'vanished', short: 'vanished', title: 'in A only: gone from B' },
  'b-only': { text: 'new', short: 'new', title: 'in B only: new' },
};

export function renderComparison(view: CompareView, actions: CompareActions): HTMLElement {
  const c = view.comparison;
  return h(
    'main',
    { class: 'results compare' },
    renderHeader(view, actions),
    renderHeadline(view),
    c.kernels.length ? renderChart(c.kernels) : h('p', { class: 'note' }, 'Neither trace has kernel dispatches.'),
    c.kernels.length ? renderKernels(c.kernels) : null,
    renderCompareRoofline(c, view.rooflines),
    c.peerCopies?.length ? renderPeerCopies(c.peerCopies) : null,
    renderRanges(view),
  );
}

function renderHeader(view: CompareView, actions: CompareActions): HTMLElement {
  const side = (key: 'a' | 'b') => {
    const s = view[key];
    const reveal = h('button', { type: 'button', class: 'link-button', title: s.path, 'data-reveal': key }, 'Reveal');
    reveal.addEventListener('click', () => actions.reveal(key));
    return h(
      'div',
      { class: `side side-${key}` },
      h('span', { class: 'side-key' }, key.toUpperCase()),
      h('span', { class: 'side-label', title: s.path }, s.label),
      h(
        'span',
        { class: 'side-stats' },
        `${formatCount(view.comparison[key].calls)} dispatches of ${formatCount(view.comparison[key].distinct)} kernels`,
      ),
      reveal,
    );
  };
  return h(
    'header',
    { class: 'header' },
    h('h1', {}, 'Compare profiles'),
    h('div', { class: 'sides' }, side('a'), side('b')),
  );
}

function amountCard(label: string, a: AmountDelta, dataKey: string): HTMLElement {
  const t = trend(a.deltaNs);
  return h(
    'div',
    { class: `card trend-${t}`, 'data-headline': dataKey },
    h('div', { class: 'card-value' }, `${formatNs(a.a)} → ${formatNs(a.b)}`),
    h('div', { class: 'card-label' }, label),
    h(
      'div',
      { class: 'card-sub delta' },
      a.deltaNs === null ? 'not in both traces' : `${formatSignedNs(a.deltaNs)} · ${formatRatio(a.ratio)}`,
    ),
  );
}

function renderHeadline(view: CompareView): HTMLElement {
  const c = view.comparison;
  const count = (m: KernelDelta['match']) => c.kernels.filter((k) => k.match === m).length;
  const paired = count('exact') + count('short-name');
  return h(
    'section',
    { class: 'headline', 'aria-label': 'Headline' },
    h(
      'div',
      { class: 'cards' },
      amountCard('kernel time, A → B', c.kernelTime, 'kernel-time'),
      amountCard('GPU busy time, A → B', c.busy, 'busy'),
      amountCard('GPU wall span, A → B', c.wall, 'wall'),
      h(
        'div',
        { class: 'card', 'data-headline': 'kernels' },
        h('div', { class: 'card-value' }, `${formatCount(paired)} paired`),
        h('div', { class: 'card-label' }, 'kernels'),
        h(
          'div',
          { class: 'card-sub' },
          `${formatCount(count('b-only'))} new · ${formatCount(count('a-only'))} vanished`,
          count('short-name') ? ` · ${formatCount(count('short-name'))} paired by base name` : '',
        ),
      ),
    ),
    h('p', { class: 'note legend' }, 'Ratios are B / A: below 1× B took less time. A is the baseline.'),
  );
}

function kernelLabel(k: KernelDelta): string {
  return k.shortName || k.name;
}

function fullTitle(k: KernelDelta): string {
  return k.aName ? `A: ${k.aName}\nB: ${k.name}` : k.name;
}

function mark(k: KernelDelta): Child {
  const m = MARKS[k.match];
  return m.text ? h('span', { class: `mark mark-${k.match}`, title: m.title }, m.text) : null;
}

function deltaCell(ns: number | null, text = formatSignedNs(ns)): HTMLElement {
  return h('span', { class: `delta trend-${trend(ns)}` }, text);
}

function kernelRows(kernels: KernelDelta[]): TableRow[] {
  return kernels.map((k) => ({
    attrs: { class: `match-${k.match}`, 'data-kernel': k.name },
    cells: [
      h('span', { class: 'kernel-name', title: fullTitle(k), tabindex: 0 }, kernelLabel(k)),
      mark(k),
      formatCount(k.a?.calls),
      formatCount(k.b?.calls),
      formatNs(k.a?.totalNs),
      formatNs(k.b?.totalNs),
      deltaCell(k.deltaTotalNs),
      k.ratio === null ? '–' : deltaCell(k.deltaTotalNs, formatRatio(k.ratio)),
      formatNs(k.a?.avgNs),
      formatNs(k.b?.avgNs),
      k.deltaAvgNs === null ? '–' : deltaCell(k.deltaAvgNs),
    ],
  }));
}

const KERNEL_HEADERS = [
  'kernel',
  '',
  'A calls',
  'B calls',
  'A total',
  'B total',
  'Δ total',
  'B / A',
  'A avg',
  'B avg',
  'Δ avg',
];

function renderKernels(kernels: KernelDelta[]): HTMLElement {
  const shown = kernels.slice(0, TOP_KERNELS);
  return h(
    'section',
    { class: 'kernels-compare' },
    h('h2', {}, 'Kernels'),
    dataTable(
      `Kernels, biggest change of total time first${kernels.length > shown.length ? ` (top ${shown.length} of ${kernels.length})` : ''}`,
      KERNEL_HEADERS,
      kernelRows(shown),
      'kernels compare-kernels',
    ),
  );
}

function barLabel(k: KernelDelta): string {
  const what = k.match === 'b-only' ? 'new in B' : k.match === 'a-only' ? 'vanished from B' : formatRatio(k.ratio);
  return `${kernelLabel(k)}: ${formatSignedNs(k.deltaTotalNs)} total (${what})`;
}

/** Shortens a label for the chart's own text (the full name is in the bar's title). */
function clip(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

/** Horizontal bars of Δ total from a middle axis: left is less time in B (faster), right is more (slower). */
function renderChart(kernels: KernelDelta[]): HTMLElement {
  const top = kernels.filter((k) => k.deltaTotalNs !== 0).slice(0, TOP_BARS);
  if (top.length === 0) return h('p', { class: 'note' }, 'No kernel changed its total time.');
  const max = Math.max(...top.map((k) => Math.abs(k.deltaTotalNs)));
  // label | value | bars left of the axis | bars right of it | value: a value never runs into a label
  const rowH = 24;
  const labelW = 330;
  const valueW = 72;
  const half = 220;
  const width = labelW + 2 * (valueW + half);
  const axis = labelW + valueW + half;
  const height = top.length * rowH + 8;
  const bars = top.map((k, i) => {
    const w = Math.max(1, (Math.abs(k.deltaTotalNs) / max) * (half - 8));
    const y = 4 + i * rowH;
    const x = k.deltaTotalNs < 0 ? axis - w : axis;
    const label = barLabel(k);
    return svg(
      'g',
      {
        class: `bar-row trend-${trend(k.deltaTotalNs)} match-${k.match}`,
        role: 'img',
        'aria-label': label,
        'data-bar': k.name,
      },
      svg('title', {}, `${label}\n${fullTitle(k)}`),
      svg(
        'text',
        { class: 'bar-label', x: labelW - 8, y: y + rowH / 2, 'text-anchor': 'end', 'dominant-baseline': 'central' },
        clip(kernelLabel(k), 30),
        MARKS[k.match].short ? ` (${MARKS[k.match].short})` : '',
      ),
      svg('rect', { class: 'bar-rect', x, y: y + 4, width: w, height: rowH - 8, rx: 2 }),
      svg(
        'text',
        {
          class: 'bar-value',
          x: k.deltaTotalNs < 0 ? axis - w - 6 : axis + w + 6,
          y: y + rowH / 2,
          'text-anchor': k.deltaTotalNs < 0 ? 'end' : 'start',
          'dominant-baseline': 'central',
        },
        formatSignedNs(k.deltaTotalNs),
      ),
    );
  });
  const chart = svg(
    'svg',
    {
      class: 'delta-chart',
      viewBox: `0 0 ${width} ${height + 20}`,
      role: 'group',
      'aria-label': `Biggest changes of kernel time, B against A: ${top.length} kernels`,
    },
    svg('line', { class: 'chart-axis', x1: axis, x2: axis, y1: 0, y2: height }),
    ...bars,
    svg('text', { class: 'chart-legend', x: axis - 8, y: height + 12, 'text-anchor': 'end' }, '← less time in B'),
    svg('text', { class: 'chart-legend', x: axis + 8, y: height + 12, 'text-anchor': 'start' }, 'more time in B →'),
  );
  return h(
    'section',
    { class: 'chart-section' },
    h('h2', {}, 'Biggest changes'),
    h(
      'figure',
      { class: 'delta-figure' },
      chart,
      h(
        'figcaption',
        { class: 'note' },
        `Change of total kernel time per kernel, the ${top.length} biggest; scale ±${formatNs(max)}.`,
      ),
    ),
    h(
      'details',
      { class: 'chart-data' },
      h('summary', {}, 'The chart as a table'),
      dataTable(
        'Biggest changes of kernel time',
        ['kernel', '', 'Δ total', 'B / A'],
        top.map((k) => ({
          cells: [
            h('span', { class: 'kernel-name', title: fullTitle(k) }, kernelLabel(k)),
            mark(k),
            deltaCell(k.deltaTotalNs),
            k.ratio === null ? '–' : formatRatio(k.ratio),
          ],
        })),
        'chart-table',
      ),
    ),
  );
}

/** The whole profile's GPU-to-GPU copy pairs on both sides, biggest change of time first. */
function renderPeerCopies(pairs: PeerCopyDelta[]): HTMLElement {
  const cut = cutPairChanges(pairs, TOP_PAIRS);
  const t = cut.total;
  // a CSV trace records no sizes: bytes columns only when a side has some
  const bytes = pairs.some((p) => p.a?.bytes != null || p.b?.bytes != null);
  const side = (s: PeerCopyDelta['a']): Child[] => [
    formatCount(s?.calls),
    ...(bytes ? [formatBytes(s?.bytes)] : []),
    formatNs(s?.totalNs),
  ];
  const sideHeaders = (k: string): string[] => [`${k} copies`, ...(bytes ? [`${k} bytes`] : []), `${k} time`];
  return h(
    'section',
    { class: 'peer-compare' },
    h('h2', {}, 'GPU-to-GPU copies'),
    h(
      'p',
      { class: 'note' },
      `All pairs: ${formatNs(t.aNs)} → ${formatNs(t.bNs)} · `,
      deltaCell(t.deltaNs),
      t.ratio === null ? '' : ` · ${formatRatio(t.ratio)}`,
    ),
    dataTable(
      `Copies per GPU pair, biggest change of time first${cut.more ? ` (top ${cut.shown.length} of ${pairs.length})` : ''}`,
      [
        { label: 'from', key: true },
        { label: 'to', key: true },
        '',
        ...sideHeaders('A'),
        ...sideHeaders('B'),
        'Δ time',
        'B / A',
      ],
      cut.shown.map((p) => {
        const m = pairChangeMark(p);
        return {
          attrs: { class: 'peer-pair', 'data-src': p.srcAgentId, 'data-dst': p.dstAgentId },
          cells: [
            gpuEndLabel(p.srcGpu, p.srcAgentId),
            gpuEndLabel(p.dstGpu, p.dstAgentId),
            m
              ? h('span', { class: `mark mark-${m === 'new' ? 'b-only' : 'a-only'}` }, m === 'new' ? 'new' : 'vanished')
              : '',
            ...side(p.a),
            ...side(p.b),
            deltaCell(p.deltaTotalNs),
            p.ratio === null ? '–' : deltaCell(p.deltaTotalNs, formatRatio(p.ratio)),
          ],
        };
      }),
      'peer-compare-table',
    ),
    cut.more ? h('p', { class: 'note peer-more' }, morePairsText(cut.more)) : null,
  );
}

function rangeSummary(r: RangeDelta): string {
  const side = (s: RangeDelta['a']) =>
    s ? `${formatNs(s.kernelNs)} (${formatCount(s.kernelCalls)} dispatches)` : 'absent';
  return `A ${side(r.a)} → B ${side(r.b)}`;
}

function renderRanges(view: CompareView): HTMLElement | null {
  const ranges = view.comparison.ranges;
  if (!ranges) {
    return h(
      'section',
      { class: 'ranges-compare' },
      h('h2', {}, 'Per case'),
      h('p', { class: 'note' }, 'Per-case deltas need rocTX ranges (benchmark cases) in both traces.'),
    );
  }
  const shown = ranges.filter((r) => (r.a?.kernelCalls ?? 0) + (r.b?.kernelCalls ?? 0) > 0);
  const by = view.comparison.rangeAttribution;
  return h(
    'section',
    { class: 'ranges-compare' },
    h('h2', {}, 'Per case (rocTX ranges)'),
    dataTable(
      'Kernel time per range',
      ['range', 'A kernel time', 'B kernel time', 'Δ', 'B / A', 'A dispatches', 'B dispatches'],
      ranges.map((r) => ({
        attrs: { 'data-range-row': r.name },
        cells: [
          h('span', { class: 'range-name' }, r.name, r.a ? '' : ' (new)', r.b ? '' : ' (vanished)'),
          formatNs(r.a?.kernelNs),
          formatNs(r.b?.kernelNs),
          deltaCell(r.deltaKernelNs),
          r.kernelRatio === null ? '–' : deltaCell(r.deltaKernelNs, formatRatio(r.kernelRatio)),
          formatCount(r.a?.kernelCalls),
          formatCount(r.b?.kernelCalls),
        ],
      })),
      'ranges',
    ),
    by.a && by.b && by.a !== by.b
      ? h('p', { class: 'note' }, `Kernels were attributed to ranges differently: A by ${by.a}, B by ${by.b}.`)
      : null,
    ...shown.map((r, i) =>
      h(
        'details',
        { class: 'range-case', 'data-range': r.name, open: i < OPEN_CASES },
        h(
          'summary',
          {},
          h('span', { class: 'range-name' }, r.name),
          ` · ${rangeSummary(r)} · `,
          deltaCell(r.deltaKernelNs),
        ),
        r.kernels.length
          ? dataTable(
              `Kernels in ${r.name}`,
              KERNEL_HEADERS,
              kernelRows(r.kernels.slice(0, TOP_KERNELS)),
              'kernels range-kernels',
            )
          : h('p', { class: 'note' }, 'No kernels.'),
      ),
    ),
  );
}
