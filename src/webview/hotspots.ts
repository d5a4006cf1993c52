// The results page's "Hot spots" section: per kernel with PC samples, its stall reasons as one stacked bar and its
// hottest source lines and instructions (TraceSummary.hotspots, src/core/protocol/pcSampling.ts). A multi-process
// profile gets a "Rank" choice: all ranks (the whole profile), or one process's own hot spots (`hotspots.processes`),
// the slowest rank named by the summary's imbalance and labelled by core (processChoices). The editor's heat stays
// the whole profile's. DOM only: file names, instructions and kernel names come from sample files and go in as text.
import type { HotInstruction, HotLine, KernelHotspots, PcHotspots } from '../core/protocol/pcSampling';
import type { TraceSummary } from '../core/protocol/traceSummary';
import { processChoices, stallLabel } from '../core/format/index';
import { percentBar } from './bars';
import { dataTable, h } from './dom';
import { formatCount } from './format';

const TOP = 10;
/** Kernels shown (hottest first); `kernel-runner hotspots` lists them all. */
const TOP_KERNELS = 8;
/** Stall colours cycle through this many classes (media/results.css: .stall-0 ...). */
const COLOURS = 6;

function sorted(tally: Record<string, number>): Array<[string, number]> {
  return Object.entries(tally).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
}

function topStall(site: HotLine | HotInstruction): string {
  const [first] = sorted(site.stalls);
  return first ? stallLabel(first[0]) : '–';
}

/** The kernel's not-issued samples per stall reason, as one bar of segments with a legend. */
function stallBar(k: KernelHotspots): HTMLElement | null {
  const entries = sorted(k.stalls);
  const total = entries.reduce((s, [, n]) => s + n, 0);
  if (!total) return null;
  const segments = entries.map(([reason, n], i) => {
    const seg = h('span', {
      class: `stall-seg stall-${i % COLOURS}`,
      title: `${stallLabel(reason)}: ${formatCount(n)} samples`,
    });
    seg.style.width = `${((n / total) * 100).toFixed(2)}%`;
    return seg;
  });
  const text = entries.map(([reason, n]) => `${stallLabel(reason)} ${((n / total) * 100).toFixed(1)}%`).join(', ');
  return h(
    'div',
    { class: 'stalls' },
    h('span', { class: 'stall-bar', role: 'img', 'aria-label': `Stall reasons: ${text}` }, ...segments),
    h(
      'ul',
      { class: 'stall-legend' },
      ...entries.map(([reason, n], i) =>
        h(
          'li',
          {},
          h('span', { class: `stall-swatch stall-${i % COLOURS}` }),
          `${stallLabel(reason)} ${formatCount(n)}`,
        ),
      ),
    ),
  );
}

/** `of`: whose samples the kernel's share is of (`all`, `rank 2's`). */
function renderKernel(k: KernelHotspots, method: PcHotspots['method'], of: string): HTMLElement {
  const issued = k.issued === null ? '' : `, ${formatCount(k.issued)} issued`;
  const noLine = k.withoutLine ? `, ${formatCount(k.withoutLine)} without a source line` : '';
  return h(
    'div',
    { class: 'hotspots-kernel' },
    h('h4', { title: k.name }, k.shortName),
    h(
      'p',
      { class: 'note' },
      `${formatCount(k.samples)} samples (${(k.share * 100).toFixed(1)}% of ${of})${issued}${noLine}.`,
    ),
    method === 'host_trap' ? null : stallBar(k),
    k.lines.length
      ? dataTable(
          `Hottest source lines (${formatCount(Math.min(TOP, k.lines.length))} of ${formatCount(k.linesTotal)})`,
          ['line', 'samples', { label: 'share', key: true }, 'top stall'],
          k.lines
            .slice(0, TOP)
            .map((l) => [
              h('code', { title: `${l.file}:${l.line}` }, `${baseName(l.file)}:${l.line}`),
              formatCount(l.samples),
              percentBar(l.share * 100),
              topStall(l),
            ]),
          'hot-lines',
        )
      : null,
    k.instructions.length
      ? dataTable(
          `Hottest instructions (${formatCount(Math.min(TOP, k.instructions.length))} of ${formatCount(k.instructionsTotal)})`,
          ['instruction', 'offset', 'line', 'samples', { label: 'share', key: true }, 'top stall'],
          k.instructions
            .slice(0, TOP)
            .map((i) => [
              h('code', {}, i.text || '(unknown code)'),
              i.offset === null ? '–' : `0x${i.offset.toString(16)}`,
              i.line === null ? '–' : String(i.line),
              formatCount(i.samples),
              percentBar(i.share * 100),
              topStall(i),
            ]),
          'hot-instructions',
        )
      : null,
  );
}

function baseName(file: string): string {
  return file.slice(Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\')) + 1);
}

/** The kernel blocks of one choice (the whole profile's, or one process's), the hottest TOP_KERNELS, the rest counted. */
function renderKernels(kernels: readonly KernelHotspots[], method: PcHotspots['method'], of: string): HTMLElement[] {
  if (!kernels.length) return [h('p', { class: 'note' }, 'No PC samples.')];
  const shown = kernels.slice(0, TOP_KERNELS).map((k) => renderKernel(k, method, of));
  if (kernels.length <= TOP_KERNELS) return shown;
  return [
    ...shown,
    h(
      'p',
      { class: 'note hotspots-more' },
      `${formatCount(kernels.length - TOP_KERNELS)} more kernels with fewer samples: \`kernel-runner hotspots\` on the trace lists them all.`,
    ),
  ];
}

/**
 * The "Rank" choice of a multi-process profile: "All ranks" first, then each process; choosing one puts its own
 * kernels in `body` (it holds the whole profile's to begin with; a native select: the keyboard moves through it, a screen reader hears the new status).
 */
function rankChoice(hot: PcHotspots, slowestRank: number | null, body: HTMLElement): HTMLElement | null {
  const choices = processChoices(hot.processes ?? [], slowestRank);
  if (choices.length < 2) return null;
  const select = h(
    'select',
    { id: 'hotspots-rank', class: 'hotspots-rank-select' },
    h('option', { value: '' }, 'All ranks'),
    ...choices.map((c, i) => h('option', { value: String(i) }, c.label)),
  );
  const allRanks = (): HTMLElement => h('span', {}, `All ranks: ${formatCount(hot.samples)} samples.`);
  // `body` starts with the whole profile's kernels: the choice only replaces them when it changes
  const status = h('p', { class: 'note hotspots-rank-status', role: 'status' }, allRanks());
  select.addEventListener('change', () => {
    const c = select.value === '' ? null : choices[Number(select.value)];
    if (!c) {
      status.replaceChildren(allRanks());
      body.replaceChildren(...renderKernels(hot.kernels, hot.method, 'all'));
      return;
    }
    const text = `${c.label}: ${formatCount(c.process.samples)} samples, read from its own files. The editor's heat stays all ranks'.`;
    status.replaceChildren(h('span', {}, text));
    body.replaceChildren(...renderKernels(c.process.kernels, hot.method, `${c.name}'s`));
  });
  return h('div', { class: 'hotspots-rank' }, h('label', { for: 'hotspots-rank' }, 'Rank'), ' ', select, status);
}

export function renderHotspots(s: TraceSummary): HTMLElement | null {
  const hot = s.hotspots;
  if (!hot || hot.kernels.length === 0) return null;
  const interval =
    hot.interval === null
      ? ''
      : `, every ${formatCount(hot.interval)} ${hot.intervalUnit === 'time' ? 'µs' : (hot.intervalUnit ?? '')}`.trimEnd();
  const body = h('div', { class: 'hotspots-kernels' }, ...renderKernels(hot.kernels, hot.method, 'all'));
  return h(
    'section',
    { class: 'hotspots' },
    h('h3', {}, 'Hot spots'),
    h(
      'p',
      { class: 'note' },
      `Where the PC samples fell (${hot.method.replace('_', '-')} sampling${interval}, ${formatCount(hot.samples)} samples). The kernel's source file and disassembly show the same heat in the editor.`,
    ),
    ...hot.warnings.map((w) => h('p', { class: 'note warning' }, w)),
    rankChoice(hot, s.ranks?.imbalance[0]?.slowestRank ?? null, body),
    body,
  );
}
