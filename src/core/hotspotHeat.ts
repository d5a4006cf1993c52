// Where the PC-sampling hot spots go in an editor: which source lines and which disassembly rows are hot, how hot
// (a tint level), and the words shown beside them ("31% · waitcnt") and on hover (the stall breakdown). The
// extension only turns these marks into decorations. Shares are of the kernel's samples (src/core/protocol/pcSampling.ts).
import { stallLabel } from './format/pcSampling';
import { inlineCalls, inlineLine, isInlineGenerated, type InlineCall } from './inlineHipLines';
import type { HotInstruction, HotLine, KernelHotspots, PcHotspots } from './protocol/pcSampling';

/** Tint levels: 1 (coolest) .. HEAT_LEVELS (the hottest mark of the editor). */
export const HEAT_LEVELS = 5;

export interface HeatMark {
  /** Source marks: the 1-based source line. Disassembly marks: the 0-based row of the listing. */
  line: number;
  samples: number;
  share: number;
  level: number;
  /** End-of-line hint: `31% · waitcnt`. */
  hint: string;
  /** Hover lines (Markdown): the kernel, the samples, the stall and issue breakdown. */
  hover: string[];
}

/** An instruction of the kernel's disassembly (src/trace/codeObjects/listing.ts gives these). */
export interface ListingInstruction {
  row: number;
  offset: number;
  text: string;
  file: string | null;
  line: number | null;
}

function percent(share: number): string {
  const p = share * 100;
  return p > 0 && p < 10 ? `${p.toFixed(1)}%` : `${Math.round(p)}%`;
}

function top(tally: Record<string, number>): string | undefined {
  let best: [string, number] | undefined;
  for (const [k, n] of Object.entries(tally)) if (!best || n > best[1] || (n === best[1] && k < best[0])) best = [k, n];
  return best?.[0];
}

/** `31%`, `31% · waitcnt`; a waitcnt stall on an `s_waitcnt` names the counters it waits for (`waitcnt vmcnt`). */
function heatHint(share: number, stalls: Record<string, number>, instruction?: string): string {
  const reason = top(stalls);
  if (!reason) return percent(share);
  let label = stallLabel(reason);
  if (reason === 'WAITCNT' && instruction && /^s_waitcnt\b/.test(instruction)) {
    const counters = [...instruction.matchAll(/\b(vmcnt|lgkmcnt|expcnt|vscnt)\(/g)].map((m) => m[1]);
    if (counters.length) label = `waitcnt ${counters.join(' ')}`;
  }
  return `${percent(share)} · ${label}`;
}

function breakdown(title: string, tally: Record<string, number>): string | undefined {
  const entries = Object.entries(tally).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const total = entries.reduce((s, [, n]) => s + n, 0);
  if (!total) return undefined;
  return `${title}: ${entries.map(([k, n]) => `${stallLabel(k)} ${n} (${percent(n / total)})`).join(', ')}`;
}

/** Markdown-safe text: a kernel name or file from a sample file must not become a link or markup. */
function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~&]/g, (c) => `\\${c}`);
}

function hoverOf(kernel: KernelHotspots, site: HotLine | HotInstruction, what: string): string[] {
  const lanes = site.meanActiveLanes === null ? '' : `, mean active lanes ${site.meanActiveLanes.toFixed(1)} of 64`;
  return [
    `**${percent(site.share)}** of the PC samples of ${escapeMarkdown(kernel.shortName)} ${escapeMarkdown(what)}: ${site.samples} of ${kernel.samples}${lanes}`,
    ...[breakdown('Stalled on', site.stalls), breakdown('Issued', site.types)]
      .filter((l): l is string => l !== undefined)
      .map(escapeMarkdown),
  ];
}

function withLevels(marks: Array<Omit<HeatMark, 'level'>>): HeatMark[] {
  const max = Math.max(0, ...marks.map((m) => m.share));
  return marks
    .map((m) => ({ ...m, level: max > 0 ? Math.max(1, Math.ceil((m.share / max) * HEAT_LEVELS)) : 1 }))
    .sort((a, b) => a.line - b.line);
}

/** The last path part, either separator. */
function baseName(file: string): string {
  return file.slice(Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\')) + 1);
}

/**
 * Whether a sample's file (the path it was compiled as, often on another machine) is this editor's file: the same
 * path, else the same file name (the runner compiles a copy of the submission in its own folder).
 */
function sameSourceFile(sampleFile: string, editorPath: string): boolean {
  const norm = (p: string) => p.replace(/\\/g, '/');
  return norm(sampleFile) === norm(editorPath) || baseName(sampleFile) === baseName(editorPath);
}

/**
 * The hot source lines of one file over every kernel of the hot spots: per line the kernel with the most samples
 * there gives the share and hint; the hover names every kernel that sampled it. A Python file's text (`editorText`)
 * also takes the samples of the source torch's `load_inline` generated from its strings, on the strings' lines
 * (core/inlineHipLines.ts), from kernels its strings still define.
 */
export function sourceHeat(all: readonly PcHotspots[], editorPath: string, editorText?: string): HeatMark[] {
  const python = editorText !== undefined && /\.py$/i.test(editorPath);
  let calls: InlineCall[] | undefined; // read once, when a sample names a generated file
  const lineOf = (kernel: KernelHotspots, site: HotLine): number | null => {
    if (sameSourceFile(site.file, editorPath)) return site.line;
    if (!python || !isInlineGenerated(site.file)) return null;
    calls ??= inlineCalls(editorText);
    const at = inlineLine(calls, site.file, site.line);
    // a kernel no string defines any more (renamed, removed): its lines would land on someone else's code
    if (!at || !kernelDefinedIn(kernel, at.kernels)) return null;
    return at.line;
  };
  const byLine = new Map<number, { best: { kernel: KernelHotspots; site: HotLine }; hover: string[] }>();
  for (const hot of all) {
    for (const kernel of hot.kernels) {
      for (const site of kernel.lines) {
        const line = lineOf(kernel, site);
        if (line === null) continue;
        const hover = hoverOf(kernel, site, `on line ${line}`);
        const at = byLine.get(line);
        if (!at) byLine.set(line, { best: { kernel, site }, hover });
        else {
          if (site.samples > at.best.site.samples) at.best = { kernel, site };
          at.hover.push('', ...hover);
        }
      }
    }
  }
  return withLevels(
    [...byLine].map(([line, { best, hover }]) => ({
      line,
      samples: best.site.samples,
      share: best.site.share,
      hint: heatHint(best.site.share, best.site.stalls),
      hover,
    })),
  );
}

/**
 * Whether a sampled kernel is one of these `__global__` functions: its short name (`ns::kern<…>` gives `kern`), or
 * a name we cannot read (no kernel trace: `dispatch 3`) taken on trust.
 */
function kernelDefinedIn(kernel: KernelHotspots, globals: readonly string[]): boolean {
  if (/^dispatch \d+$/.test(kernel.name)) return true;
  const base = kernel.shortName.replace(/<.*$/s, '').split('::').at(-1) ?? '';
  return globals.includes(base);
}

/**
 * The hot rows of one kernel's disassembly: an instruction sampled with its code object offset is the row at
 * that offset; one sampled by text only (host-trap CSV) is every row with the same text and source line.
 */
export function disassemblyHeat(listing: readonly ListingInstruction[], kernel: KernelHotspots): HeatMark[] {
  const byOffset = new Map<number, ListingInstruction[]>();
  const byText = new Map<string, ListingInstruction[]>();
  const push = <K>(m: Map<K, ListingInstruction[]>, k: K, i: ListingInstruction) =>
    void (m.get(k) ?? m.set(k, []).get(k)!).push(i);
  for (const i of listing) {
    push(byOffset, i.offset, i);
    push(byText, `${i.text}\n${i.line ?? ''}`, i);
  }
  const rows = new Map<number, { samples: number; site: HotInstruction; hover: string[] }>();
  for (const site of kernel.instructions) {
    const text = site.text.trim().replace(/\s+/g, ' ');
    let hits =
      site.offset !== null ? (byOffset.get(site.offset) ?? []) : (byText.get(`${text}\n${site.line ?? ''}`) ?? []);
    // no line (built without line info, or line 0, which objdump files under the line above): the rows with its text
    if (site.offset === null && site.line === null && hits.length === 0) hits = listing.filter((i) => i.text === text);
    const where = site.line === null ? '' : ` (line ${site.line})`;
    for (const hit of hits) {
      const at = rows.get(hit.row);
      const hover = hoverOf(kernel, site, `at ${text}${where}`);
      if (!at) rows.set(hit.row, { samples: site.samples, site, hover });
      else {
        at.samples += site.samples;
        at.hover.push('', ...hover);
      }
    }
  }
  return withLevels(
    [...rows].map(([row, { samples, site, hover }]) => {
      const share = kernel.samples ? Math.min(1, samples / kernel.samples) : 0;
      return { line: row, samples, share, hint: heatHint(share, site.stalls, site.text), hover };
    }),
  );
}
