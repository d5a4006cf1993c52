// Builds the results page from a ResultView with DOM APIs only (see dom.ts): run summary, then per profile the
// trace summary (links, busy %, timeline, top kernels, launches, roofline and speed of light, counters, copies, API,
// rocTX ranges with a section per case).
import type {
  KernelCounters,
  KernelRow,
  MarkerRow,
  ProfilerControl,
  PseudoRow,
  TraceSummary,
  TraceTimeline,
} from '../core/protocol/traceSummary';
import { counterPassesText, rankOfAgent } from '../core/format/index';
import { percentBar } from './bars';
import { dataTable, h, svg, type Child } from './dom';
import {
  formatBandwidth,
  formatBytes,
  formatCount,
  formatCounterValue,
  formatDim,
  formatMeanErr,
  formatNs,
  formatPercent,
  formatSeconds,
} from './format';
import { renderIsaSection, type IsaActions } from './isaSection';
import { renderMarkdown } from './markdown';
import { renderRooflineSections } from './roofline';
import { renderHotspots } from './hotspots';
import { renderPeerMatrix, renderRanks } from './ranks';
import type { BenchmarkCaseView, OutputView, ProfileView, ResultView, RunSectionView, TestCaseView } from './protocol';

export interface Actions extends IsaActions {
  downloadTrace(profileKey: string): void;
  openPerfetto(profileKey: string): void;
  showOutput(): void;
}

const TOP_KERNELS = 25;

export function renderResult(view: ResultView, actions: Actions): HTMLElement {
  return h(
    'main',
    { class: 'results' },
    renderHeader(view, actions),
    view.jobStatus && view.jobStatus.explanation
      ? h(
          'section',
          { class: 'error-box job-status', role: 'alert', 'data-job-status': view.jobStatus.status },
          h('h2', {}, `Job ${view.jobStatus.label}`),
          h('p', {}, view.jobStatus.explanation),
        )
      : null,
    view.error
      ? h('section', { class: 'error-box', role: 'alert' }, h('h2', {}, 'Error'), h('pre', {}, view.error))
      : null,
    view.rankedScore ? renderRankedScore(view) : null,
    // A profile is what the person asked for: its trace summary comes before the run details.
    ...view.profiles.map((p) => renderProfile(p, actions)),
    ...view.runs.map(renderRun),
    view.markdownReports?.length ? renderMarkdownReports(view.markdownReports) : null,
    view.reports.length ? renderReports(view.reports) : null,
    view.outputs?.length ? renderOutputs(view.outputs) : null,
    view.system ? renderSystem(view.system) : null,
  );
}

function renderRankedScore(view: ResultView): HTMLElement | null {
  const s = view.rankedScore;
  if (!s) return null;
  const how =
    s.source === 'run'
      ? 'as scored by the service'
      : `computed from the ranked run's timings (ranking: ${s.rankingBy})`;
  const ranked = s.notRanked === undefined;
  return h(
    'div',
    { class: ranked ? 'cards ranked' : 'cards not-ranked' },
    h(
      'div',
      {
        class: 'card',
        ...(ranked ? { 'data-ranked-score': String(s.seconds) } : { 'data-not-ranked': s.notRanked ?? '' }),
      },
      h('div', { class: 'card-value' }, s.text),
      h('div', { class: 'card-label' }, ranked ? 'ranked score' : `score, not ranked: ${s.notRanked}`),
      h('div', { class: 'card-sub' }, `${view.leaderboard} on ${view.gpu}, ${how}`),
    ),
  );
}

function renderMarkdownReports(reports: string[]): HTMLElement {
  return h(
    'section',
    { class: 'markdown-reports' },
    h('h2', {}, 'Reports'),
    ...reports.map((r) => h('article', { class: 'markdown' }, renderMarkdown(r))),
  );
}

function renderOutputs(outputs: OutputView[]): HTMLElement {
  return h(
    'section',
    { class: 'outputs' },
    h('h2', {}, 'Program output'),
    ...outputs.map((o) =>
      h(
        'details',
        { 'data-output': `${o.key}.${o.stream}` },
        h(
          'summary',
          {},
          `${o.key}${o.secret ? ' (secret run)' : ''} ${o.stream}`,
          o.hiddenNoiseLines ? ` · ${formatCount(o.hiddenNoiseLines)} profiler log lines hidden` : '',
        ),
        h('pre', {}, o.text),
      ),
    ),
  );
}

function outcomeLabel(view: ResultView): string {
  switch (view.outcome) {
    case 'success':
      return 'passed';
    case 'failure':
      return 'failed';
    case 'error':
      return 'error';
    case 'cancelled':
      return 'cancelled';
    case 'trace':
      return 'trace';
  }
}

function renderHeader(view: ResultView, actions: Actions): HTMLElement {
  const meta: Child[] = [];
  const add = (label: string, value: string | undefined) => {
    if (value) meta.push(h('span', { class: 'meta-item' }, h('span', { class: 'meta-label' }, label + ' '), value));
  };
  add('file', view.fileName);
  add('leaderboard', view.leaderboard);
  add('GPU', view.gpu);
  add('mode', view.mode);
  add('target', view.target);
  if (view.submissionId !== undefined) add('submission', `#${view.submissionId}`);
  if (view.jobStatus) add('job', view.jobStatus.label);
  if (view.outcome !== 'trace') add('elapsed', formatSeconds(view.elapsedS));
  if (view.hiddenNoiseLines) add('hidden profiler lines', formatCount(view.hiddenNoiseLines));
  return h(
    'header',
    { class: 'header' },
    h(
      'h1',
      {},
      h('span', { class: `badge badge-${view.outcome}`, role: 'status' }, outcomeLabel(view)),
      ' ',
      view.title,
    ),
    h('div', { class: 'meta' }, ...meta),
    ...(view.notes ?? []).map((n) => h('p', { class: 'note' }, n)),
    view.outcome === 'trace' ? null : button('Show output', 'show-output', () => actions.showOutput()),
  );
}

function button(label: string, id: string, onClick: () => void, extra: Record<string, string> = {}): HTMLButtonElement {
  const b = h('button', { type: 'button', 'data-action': id, ...extra }, label);
  b.addEventListener('click', onClick);
  return b;
}

function renderRun(run: RunSectionView): HTMLElement {
  const status = run.passed ? 'passed' : run.success ? 'failed' : 'did not finish';
  const facts: Child[] = [
    h(
      'span',
      { class: `badge badge-${run.passed ? 'success' : 'failure'}` },
      run.noProcessInfo ? (run.passed ? 'passed' : 'failed') : status,
    ),
    run.noProcessInfo
      ? null
      : h(
          'span',
          { class: 'meta-item' },
          h('span', { class: 'meta-label' }, 'exit code '),
          String(run.exitCode),
          run.exitMeaning ? ` (${run.exitMeaning})` : '',
        ),
    h('span', { class: 'meta-item' }, h('span', { class: 'meta-label' }, 'duration '), formatSeconds(run.durationS)),
  ];
  if (run.scoreS !== undefined)
    facts.push(
      h('span', { class: 'meta-item' }, h('span', { class: 'meta-label' }, 'score '), formatSeconds(run.scoreS)),
    );
  return h(
    'section',
    { class: `run${run.secret ? ' secret' : ''}`, 'data-run': run.key, 'data-secret': run.secret ? 'true' : null },
    h(
      'h2',
      {},
      `Run: ${run.key}`,
      run.secret ? ' ' : '',
      run.secret
        ? h(
            'span',
            {
              class: 'badge badge-secret',
              title:
                "The service's copy of the run with a hidden seed: it guards against tuning to the public seeds and is not shown on the leaderboard.",
            },
            'secret run',
          )
        : '',
    ),
    h('div', { class: 'meta' }, ...facts),
    run.command ? h('details', { class: 'command' }, h('summary', {}, 'Command'), h('pre', {}, run.command)) : null,
    run.compile && !run.compile.success
      ? h(
          'div',
          { class: 'error-box' },
          h('h3', {}, `Compilation failed (exit ${run.compile.exitCode})`),
          h('pre', {}, run.compile.stderrTail),
        )
      : null,
    run.tests.length ? renderTests(run.tests) : null,
    run.benchmarks.length ? renderBenchmarks(run.benchmarks) : null,
    run.stderrTail ? h('details', {}, h('summary', {}, 'stderr (last lines)'), h('pre', {}, run.stderrTail)) : null,
  );
}

function renderTests(tests: TestCaseView[]): HTMLElement {
  const passed = tests.filter((t) => t.passed).length;
  return dataTable(
    `Tests: ${passed} of ${tests.length} passed`,
    ['#', 'spec', 'status', 'message'],
    tests.map((t) => [
      String(t.index),
      h('code', {}, t.spec),
      h('span', { class: `badge badge-${t.passed ? 'success' : 'failure'}` }, t.status),
      t.error || t.message ? h('span', { class: 'message' }, [t.message, t.error].filter(Boolean).join(' — ')) : '',
    ]),
    'tests',
  );
}

function renderBenchmarks(benches: BenchmarkCaseView[]): HTMLElement {
  return dataTable(
    'Benchmarks',
    ['#', 'spec', 'runs', 'mean ± err', 'best', 'worst'],
    benches.map((b) => [
      String(b.index),
      h('code', {}, b.spec),
      b.runs === undefined ? '–' : formatCount(b.runs),
      formatMeanErr(b.meanNs, b.errNs),
      formatNs(b.bestNs),
      formatNs(b.worstNs),
    ]),
    'benchmarks',
  );
}

function renderSystem(system: Record<string, string>): HTMLElement {
  const dl = h('dl', { class: 'system' });
  for (const [k, v] of Object.entries(system)) dl.append(h('dt', {}, k), h('dd', {}, v));
  return h('section', { class: 'system-info' }, h('h2', {}, 'System'), dl);
}

function renderReports(reports: string[]): HTMLElement {
  return h(
    'section',
    { class: 'reports' },
    h('h2', {}, 'Reports'),
    ...reports.map((r, i) => h('details', { open: i === 0 }, h('summary', {}, `Report ${i + 1}`), h('pre', {}, r))),
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Profiles

function renderProfile(p: ProfileView, actions: Actions): HTMLElement {
  const links: Child[] = [];
  if (p.downloadUrl || p.localPath) {
    links.push(
      button(
        p.localPath && !p.downloadUrl ? 'Reveal trace file' : 'Download full trace',
        'download-trace',
        () => actions.downloadTrace(p.key),
        {
          title: p.downloadUrl ?? p.localPath ?? '',
        },
      ),
    );
  }
  if (p.perfetto === 'available' && !p.nsightCompute)
    links.push(button('Open in Perfetto UI', 'open-perfetto', () => actions.openPerfetto(p.key)));
  const notes: Child[] = [];
  if (p.perfetto === 'too-large') {
    notes.push(
      h(
        'p',
        { class: 'note' },
        `This trace (${formatBytes(p.traceBytes)}) is too large to open in the browser: download it and use \`trace_processor server http\` with Perfetto UI.`,
      ),
    );
  }
  if (p.note) notes.push(h('p', { class: 'note' }, p.note));
  return h(
    'section',
    { class: 'profile', 'data-profile': p.key },
    h('h2', {}, p.nsightCompute ? `Nsight Compute report: ${p.key}` : `Profile: ${p.key}`),
    links.length ? h('div', { class: 'links' }, ...links) : null,
    ...notes,
    p.summary
      ? renderTrace(p.summary)
      : p.nsightCompute
        ? null
        : h('p', { class: 'note' }, 'No trace summary came with this result.'),
    renderIsaSection(p, actions),
  );
}

/** @public the Chromium tests bundle it (test/support/webviewBrowser.ts, an esbuild stdin import knip cannot see). */
export function renderTrace(s: TraceSummary): HTMLElement {
  return h(
    'div',
    { class: 'trace' },
    s.ranks ? renderRanks(s.ranks, s.peerCopies) : null,
    renderBusy(s),
    s.timeline ? renderTimeline(s.timeline, rankOfAgent(s.ranks?.processes ?? [])) : null,
    s.warnings.length ? renderWarnings(s.warnings) : null,
    s.passes ? h('p', { class: 'note trace-passes', role: 'note' }, counterPassesText(s.passes)) : null,
    renderKernels(s.kernels, s.kernelTotals),
    s.pseudoRows?.length ? renderPseudoRows(s.pseudoRows) : null,
    renderLaunches(s.kernels),
    renderRooflineSections(s),
    renderHotspots(s),
    s.counters?.length ? renderCounters(s.counters) : null,
    s.memoryCopies.length
      ? dataTable(
          'Memory copies',
          ['direction', 'calls', 'total', 'avg', 'min', 'max', 'bytes', 'bandwidth'],
          s.memoryCopies.map((c) => [
            c.direction,
            formatCount(c.calls),
            formatNs(c.totalNs),
            formatNs(c.avgNs),
            formatNs(c.minNs),
            formatNs(c.maxNs),
            formatBytes(c.bytes),
            formatBandwidth(c.bandwidthGBps),
          ]),
          'copies',
        )
      : null,
    s.peerCopies ? renderPeerMatrix(s.peerCopies, s.ranks) : null,
    s.api.length
      ? dataTable(
          `Top HIP API calls (${formatCount(s.apiTotals.calls)} calls, ${formatNs(s.apiTotals.totalNs)} in ${formatCount(s.apiTotals.distinct)} functions)`,
          ['function', 'domain', 'calls', 'total', 'avg', 'min', 'max', '%'],
          s.api
            .slice(0, 15)
            .map((a) => [
              h('code', { title: a.name }, a.name),
              a.domain ?? '–',
              formatCount(a.calls),
              formatNs(a.totalNs),
              formatNs(a.avgNs),
              formatNs(a.minNs),
              formatNs(a.maxNs),
              percentBar(a.percent),
            ]),
          'api',
        )
      : null,
    s.markers.length ? renderRanges(s) : null,
    s.profilerControl ? renderProfilerControl(s.profilerControl, s.wall?.startNs ?? null) : null,
    renderSources(s),
  );
}

/** roctxProfilerPause / Resume: the calls, and per paused window the kernels that started on the GPU inside it. */
function renderProfilerControl(pc: ProfilerControl, wallStart: number | null): HTMLElement {
  return h(
    'div',
    { class: 'profiler-control' },
    dataTable(
      `Profiler control (${pc.calls.map((c) => `${c.name} ×${formatCount(c.calls)}`).join(', ')})`,
      ['paused at', 'for', 'dispatches started meanwhile', 'kernels'],
      pc.pausedWindows.map((w) => [
        wallStart === null ? formatNs(w.startNs) : `+${formatNs(Math.max(0, w.startNs - wallStart))}`,
        w.endNs === null ? 'the rest of the run' : formatNs(w.endNs - w.startNs),
        formatCount(w.kernels.reduce((n, k) => n + k.calls, 0)),
        w.kernels.map((k) => `${k.name} ×${formatCount(k.calls)}`).join(', '),
      ]),
      'paused-windows',
    ),
  );
}

/** Cases open at first; the rest stay folded (a run can have hundreds of ranges). */
const OPEN_CASES = 8;

/** The rocTX ranges table, then a section per range (per benchmark case) with the kernels launched inside it. */
function renderRanges(s: TraceSummary): HTMLElement {
  const kernelNs = (m: MarkerRow): number => m.kernels.reduce((n, k) => n + k.totalNs, 0);
  const kernelCalls = (m: MarkerRow): number => m.kernels.reduce((n, k) => n + k.calls, 0);
  const attributed = s.rangeAttribution !== null;
  const shortNames = new Map(s.kernels.map((k) => [k.name, k.shortName]));
  const ra = s.rangeAttribution;
  const withKernels = s.markers.filter((m) => m.kernels.length > 0);
  return h(
    'div',
    { class: 'ranges' },
    dataTable(
      'rocTX ranges',
      ['range', 'calls', 'total', 'avg', 'min', 'max', ...(attributed ? ['kernels', 'kernel time'] : [])],
      s.markers.map((m) => [
        h('span', { title: m.name }, m.name),
        formatCount(m.calls),
        formatNs(m.totalNs),
        formatNs(m.avgNs),
        formatNs(m.minNs),
        formatNs(m.maxNs),
        ...(attributed ? [formatCount(kernelCalls(m)), formatNs(kernelNs(m))] : []),
      ]),
      'markers',
    ),
    ra
      ? h(
          'p',
          { class: 'note', 'data-range-attribution': ra.by },
          `${formatCount(ra.inRanges)} of ${formatCount(ra.dispatches)} dispatches were launched inside a range, ` +
            (ra.by === 'correlation'
              ? 'each put in the innermost range open on its launching thread (by its Correlation_Id).'
              : `put there by GPU time within the process because the profile has no API trace to correlate${ra.otherThread ? ` (${formatCount(ra.otherThread)} in a range of another thread: none was open on their own)` : ''}: kernels that ran after their range closed are missing.`),
        )
      : null,
    ...withKernels.map((m, i) => {
      const total = kernelNs(m);
      return h(
        'details',
        { class: 'range-case', 'data-range': m.name, open: i < OPEN_CASES },
        h(
          'summary',
          {},
          h('span', { class: 'range-name' }, m.name),
          ` · ${formatCount(kernelCalls(m))} dispatch${kernelCalls(m) === 1 ? '' : 'es'} · ${formatNs(total)} kernel time${m.kernelAttribution === 'gpu-overlap' ? ' (by GPU time)' : ''}`,
        ),
        dataTable(
          `Kernels in ${m.name}`,
          ['kernel', 'calls', 'total', 'avg', '% of range'],
          m.kernels
            .slice(0, TOP_KERNELS)
            .map((k) => [
              h('span', { class: 'kernel-name', title: k.name, tabindex: 0 }, shortNames.get(k.name) || k.name),
              formatCount(k.calls),
              formatNs(k.totalNs),
              formatNs(k.calls > 0 ? k.totalNs / k.calls : null),
              percentBar(total > 0 ? (k.totalNs / total) * 100 : 0),
            ]),
          'range-kernels',
        ),
      );
    }),
  );
}

function renderBusy(s: TraceSummary): HTMLElement {
  const copiesOnly = s.busyCovers === 'copies-only';
  // a multi-process profile's GPUs are alike by name: each card says whose it is
  const rankOf = rankOfAgent(s.ranks?.processes ?? []);
  const cards = s.agents
    .filter((a) => a.type !== 'CPU' && (a.kernelCalls > 0 || a.busyNs > 0))
    .map((a) =>
      h(
        'div',
        { class: 'card', 'data-agent': a.id },
        h('div', { class: 'card-value' }, formatPercent(a.busyPercent), a.busyExact ? '' : ' ≈'),
        h(
          'div',
          { class: 'card-label' },
          `${copiesOnly ? 'Copy busy' : 'GPU busy'} · ${rankOf.has(a.id) ? `${rankOf.get(a.id)} · ` : ''}${a.productName ?? a.name ?? a.id}`,
        ),
        h(
          'div',
          { class: 'card-sub' },
          copiesOnly
            ? `${formatNs(a.busyNs)} of copies in ${formatNs(s.wall?.spanNs)} · kernel part unknown (kernel times from kernel_stats, no intervals)`
            : `${formatNs(a.busyNs)} busy of ${formatNs(s.wall?.spanNs)} · ${formatCount(a.kernelCalls)} dispatches${a.cuCount ? ` · ${a.cuCount} CUs` : ''}`,
        ),
      ),
    );
  cards.push(
    h(
      'div',
      { class: 'card' },
      h('div', { class: 'card-value' }, formatNs(s.kernelTotals.totalNs)),
      h('div', { class: 'card-label' }, 'kernel time'),
      h(
        'div',
        { class: 'card-sub' },
        `${formatCount(s.kernelTotals.calls)} dispatches of ${formatCount(s.kernelTotals.distinct)} kernels`,
      ),
    ),
  );
  return h('div', { class: 'cards' }, ...cards);
}

const untimed = (k: KernelRow): boolean => k.totalNs === 0 && k.minNs === null && k.calls > 0;

function renderKernels(kernels: KernelRow[], totals: TraceSummary['kernelTotals']): HTMLElement {
  const shown = kernels.slice(0, TOP_KERNELS);
  const t = dataTable(
    `Top kernels (${shown.length} of ${formatCount(totals.distinct)} by total time)`,
    ['kernel', 'calls', { label: 'total', key: true }, 'avg', 'min', 'max', { label: '% of kernel time', key: true }],
    shown.map((k) => [
      h('span', { class: 'kernel-name', title: k.name, tabindex: 0 }, k.shortName || k.name),
      formatCount(k.calls),
      // calls without times (a counter collection before ROCm 7): no durations to show
      formatNs(untimed(k) ? null : k.totalNs),
      formatNs(untimed(k) ? null : k.avgNs),
      formatNs(k.minNs),
      formatNs(k.maxNs),
      percentBar(k.percent),
    ]),
    'kernels',
  );
  return t;
}

/** What the reader skipped or could not square: shown, not folded away, since it changes what the tables mean. */
function renderWarnings(warnings: string[]): HTMLElement {
  return h('div', { class: 'note trace-warnings', role: 'note' }, h('ul', {}, ...warnings.map((w) => h('li', {}, w))));
}

function renderPseudoRows(rows: PseudoRow[]): HTMLElement {
  return h(
    'p',
    { class: 'note pseudo-rows' },
    'Listed by the profiler but not kernels (not counted above): ',
    ...rows.flatMap((r, i) => [
      i > 0 ? ', ' : '',
      h('code', {}, r.name),
      ` ${formatCount(r.calls)} × (${formatNs(r.totalNs)})`,
    ]),
  );
}

function renderCounters(counters: KernelCounters[]): HTMLElement {
  const shown = counters.slice(0, TOP_KERNELS);
  return dataTable(
    `Hardware counters per kernel (${shown.length} of ${formatCount(counters.length)} kernels; mean, min and max over the dispatches)`,
    ['kernel', 'dispatches', 'counter', 'values', 'mean', 'min', 'max'],
    shown.flatMap((k) =>
      k.counters.map((c, i) => [
        i === 0 ? h('span', { class: 'kernel-name', title: k.kernel }, k.shortName || k.kernel) : '',
        i === 0 ? formatCount(k.dispatches) : '',
        h('code', {}, c.name),
        formatCount(c.dispatches),
        formatCounterValue(c.mean),
        formatCounterValue(c.min),
        formatCounterValue(c.max),
      ]),
    ),
    'counters',
  );
}

function renderLaunches(kernels: KernelRow[]): HTMLElement | null {
  const withLaunches = kernels.slice(0, TOP_KERNELS).filter((k) => k.launches.length);
  if (!withLaunches.length) return null;
  return h(
    'details',
    { class: 'launches' },
    h('summary', {}, 'Launch configurations'),
    dataTable(
      'Launch configurations of the top kernels',
      ['kernel', 'grid', 'workgroup', 'VGPR', 'SGPR', 'LDS', 'scratch', 'dispatches'],
      withLaunches.flatMap((k) =>
        k.launches.map((l, i) => [
          i === 0 ? h('span', { class: 'kernel-name', title: k.name }, k.shortName || k.name) : '',
          formatDim(l.grid),
          formatDim(l.workgroup),
          l.vgpr === null ? '–' : String(l.vgpr) + (l.accumVgpr ? ` (+${l.accumVgpr} acc)` : ''),
          l.sgpr === null ? '–' : String(l.sgpr),
          formatBytes(l.ldsBytes),
          formatBytes(l.scratchBytes),
          formatCount(l.calls),
        ]),
      ),
      'launch-table',
    ),
  );
}

/** Busy fraction per time bucket, one row per agent: an inline SVG built node by node. */
/** Px per agent row when several GPUs share the chart: each row stays readable beside its label. */
const TIMELINE_ROW_PX = 22;

function renderTimeline(t: TraceTimeline, ranksOf: Map<string, string>): HTMLElement {
  const width = 1000;
  const rowH = 40;
  const gap = 14;
  const height = Math.max(1, t.agents.length) * (rowH + gap);
  const bw = width / Math.max(1, t.buckets);
  const chart = svg('svg', {
    class: 'timeline-chart',
    viewBox: `0 0 ${width} ${height}`,
    preserveAspectRatio: 'none',
    role: 'img',
    'aria-label': `GPU busy fraction over ${formatNs(t.endNs - t.startNs)} in ${t.buckets} buckets of ${formatNs(t.bucketNs)}`,
  });
  t.agents.forEach((a, row) => {
    const y0 = row * (rowH + gap);
    chart.append(svg('rect', { class: 'timeline-bg', x: 0, y: y0, width, height: rowH }));
    a.busyFraction.forEach((f, i) => {
      if (f <= 0) return;
      const hgt = Math.max(1, f * rowH);
      const r = svg('rect', {
        class: 'timeline-bar',
        x: (i * bw).toFixed(2),
        y: (y0 + rowH - hgt).toFixed(2),
        width: Math.max(0.5, bw - 0.3).toFixed(2),
        height: hgt.toFixed(2),
      });
      const who = ranksOf.has(a.agentId) ? `${a.agentId} (${ranksOf.get(a.agentId)})` : a.agentId;
      r.append(svg('title', {}, `${who}: ${formatPercent(f * 100)} busy at +${formatNs(i * t.bucketNs)}`));
      chart.append(r);
    });
  });
  const empty = t.agents.every((a) => a.busyFraction.every((f) => f <= 0));
  // several GPUs (a multi-GPU job): one labelled row each, the chart as tall as its rows
  const rowsApart = t.agents.length > 2;
  if (rowsApart) chart.style.height = chart.style.maxHeight = `${t.agents.length * TIMELINE_ROW_PX}px`;
  const labels = t.agents.map((a) => {
    const label = h(
      'div',
      { class: 'timeline-agent', 'data-agent': a.agentId },
      a.agentId,
      ranksOf.has(a.agentId) ? ` · ${ranksOf.get(a.agentId)}` : '',
    );
    // CSSOM, not a style attribute: the webview's CSP allows no inline styles
    if (rowsApart) label.style.height = `${TIMELINE_ROW_PX}px`;
    return label;
  });
  return h(
    'figure',
    { class: 'timeline' },
    h('figcaption', {}, 'GPU busy over time', t.exact ? '' : ' (approximate)'),
    empty
      ? h(
          'p',
          { class: 'note' },
          'No busy time shows at this resolution (the trace spans much more time than its GPU work).',
        )
      : null,
    ...(rowsApart
      ? [h('div', { class: 'timeline-rows' }, h('div', { class: 'timeline-labels stacked' }, ...labels), chart)]
      : [h('div', { class: 'timeline-labels' }, ...labels), chart]),
    h('div', { class: 'timeline-axis' }, h('span', {}, '0'), h('span', {}, formatNs(t.endNs - t.startNs))),
  );
}

function renderSources(s: TraceSummary): HTMLElement {
  return h(
    'details',
    { class: 'sources' },
    h(
      'summary',
      {},
      `Read ${s.sources.length} file${s.sources.length === 1 ? '' : 's'}${s.skipped.length ? `, skipped ${s.skipped.length}` : ''}${s.warnings.length ? `, ${s.warnings.length} note${s.warnings.length === 1 ? '' : 's'}` : ''}`,
    ),
    h(
      'ul',
      {},
      ...s.sources.map((x) =>
        h('li', {}, h('code', {}, x.path), ` — ${x.kind}, ${x.format} ${x.variant}, ${formatCount(x.rows)} rows`),
      ),
    ),
    (s.processes ?? []).length
      ? h(
          'ul',
          { class: 'processes' },
          ...(s.processes ?? []).map((p) =>
            h(
              'li',
              {},
              `process ${p.pid}${p.host ? ` on ${p.host}` : ''}`,
              p.command ? h('code', {}, ` ${p.command}`) : '',
            ),
          ),
        )
      : null,
    s.skipped.length
      ? h(
          'ul',
          { class: 'skipped' },
          ...s.skipped.map((x) => h('li', {}, h('code', {}, x.path), ` — skipped: ${x.reason}`)),
        )
      : null,
    s.warnings.length ? h('ul', { class: 'warnings' }, ...s.warnings.map((w) => h('li', {}, w))) : null,
  );
}
