// The results page's "Hot spots" section: per kernel with PC samples, its stall reasons as one stacked bar and its
// hottest source lines and instructions (TraceSummary.hotspots, src/core/protocol/pcSampling.ts). DOM only: file
// names, instructions and kernel names come from sample files and go in as text.
import type { HotInstruction, HotLine, KernelHotspots, PcHotspots } from '../core/protocol/pcSampling';
import type { TraceSummary } from '../core/protocol/traceSummary';
import { stallLabel } from '../core/format/index';
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

function renderKernel(k: KernelHotspots, method: PcHotspots['method']): HTMLElement {
  const issued = k.issued === null ? '' : `, ${formatCount(k.issued)} issued`;
  const noLine = k.withoutLine ? `, ${formatCount(k.withoutLine)} without a source line` : '';
  return h(
    'div',
    { class: 'hotspots-kernel' },
    h('h4', { title: k.name }, k.shortName),
    h(
      'p',
      { class: 'note' },
      `${formatCount(k.samples)} samples (${(k.share * 100).toFixed(1)}% of all)${issued}${noLine}.`,
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

export function renderHotspots(s: TraceSummary): HTMLElement | null {
  const hot = s.hotspots;
  if (!hot || hot.kernels.length === 0) return null;
  const interval =
    hot.interval === null
      ? ''
      : `, every ${formatCount(hot.interval)} ${hot.intervalUnit === 'time' ? 'µs' : (hot.intervalUnit ?? '')}`.trimEnd();
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
    ...hot.kernels.slice(0, TOP_KERNELS).map((k) => renderKernel(k, hot.method)),
    hot.kernels.length > TOP_KERNELS
      ? h(
          'p',
          { class: 'note hotspots-more' },
          `${formatCount(hot.kernels.length - TOP_KERNELS)} more kernels with fewer samples: \`kernel-runner hotspots\` on the trace lists them all.`,
        )
      : null,
  );
}
