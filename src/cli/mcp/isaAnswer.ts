// The MCP `isa` answer within a byte budget: kernels of code objects with demangled names, the least occupancy
// first, cut at the most generous level whose JSON fits (`+N more` per object), optionally filtered by name; one
// kernel's disassembly on request, kept as a resource (kernel-runner://disassembly/<id>) and shown as far as the
// budget leaves room.
import type { CodeObjectKernel, LoadedCodeObject } from '../../trace/codeObjects/index';
import { shortKernelName } from '../../trace/shortName';
import { answerJson, fenced } from './answers';

export const ISA_DEFAULT_MAX_BYTES = 16 * 1024;
export const ISA_MIN_MAX_BYTES = 1024;

export interface IsaArgs {
  path: string;
  kernel?: string;
  disassemble?: string;
  max_bytes?: number;
}

/** Disassemblies of this session, by id, for the resource reads (the newest kept). */
export class DisassemblyStore {
  private readonly texts = new Map<string, { title: string; text: string }>();
  private next = 0;
  constructor(private readonly keep = 32) {}

  add(title: string, text: string): string {
    const id = `d${++this.next}`;
    this.texts.set(id, { title, text });
    for (const old of this.texts.keys()) {
      if (this.texts.size <= this.keep) break;
      this.texts.delete(old);
    }
    return id;
  }

  get(id: string): { title: string; text: string } | undefined {
    return this.texts.get(id);
  }
}

export const disassemblyUri = (id: string): string => `kernel-runner://disassembly/${id}`;

interface Level {
  kernels: number;
  objects: number;
  nameChars: number;
}
const LEVELS: readonly Level[] = [
  { kernels: Infinity, objects: Infinity, nameChars: 240 },
  { kernels: 32, objects: 16, nameChars: 160 },
  { kernels: 16, objects: 8, nameChars: 100 },
  { kernels: 8, objects: 4, nameChars: 80 },
  { kernels: 4, objects: 2, nameChars: 60 },
  { kernels: 2, objects: 1, nameChars: 50 },
  { kernels: 1, objects: 1, nameChars: 40 },
  { kernels: 0, objects: 1, nameChars: 40 },
];

type Names = ReadonlyMap<string, string>;

function readable(name: string, names: Names, chars: number): string {
  const full = names.get(name) ?? name;
  return full.length <= chars ? full : shortKernelName(full, chars);
}

/** The kernels most likely to matter first: the fewest waves per SIMD, then spills, then by name. */
function byConcern(a: CodeObjectKernel, b: CodeObjectKernel): number {
  const waves = (k: CodeObjectKernel) => k.occupancy?.wavesPerSimd ?? Infinity;
  const spills = (k: CodeObjectKernel) => (k.vgprSpillCount ?? 0) + (k.sgprSpillCount ?? 0);
  return waves(a) - waves(b) || spills(b) - spills(a) || a.name.localeCompare(b.name);
}

function kernelRow(k: CodeObjectKernel, names: Names, chars: number): Record<string, unknown> {
  return {
    name: readable(k.name, names, chars),
    vgpr: k.vgprCount,
    agpr: k.agprCount,
    sgpr: k.sgprCount,
    ldsBytes: k.ldsBytes,
    scratchBytes: k.scratchBytes,
    vgprSpills: k.vgprSpillCount,
    sgprSpills: k.sgprSpillCount,
    occupancy: k.occupancy
      ? {
          wavesPerSimd: k.occupancy.wavesPerSimd,
          maxWavesPerSimd: k.occupancy.maxWavesPerSimd,
          limitedBy: k.occupancy.limitedBy,
        }
      : null,
  };
}

/** Whether a kernel's name (mangled or demangled) holds the filter text, any case. */
export function kernelMatches(k: CodeObjectKernel, names: Names, filter: string | undefined): boolean {
  if (!filter) return true;
  const f = filter.toLowerCase();
  return k.name.toLowerCase().includes(f) || (names.get(k.name) ?? '').toLowerCase().includes(f);
}

export interface IsaDisassembly {
  kernel: string;
  file: string;
  processor: string;
  uri: string;
  lines: number;
  bytes: number;
  /** How many more kernels the name matched (the first was disassembled). */
  alsoMatched: number;
  /** The full text; the answer shows as many leading lines as its budget leaves room for. */
  text: string;
}

function atLevel(
  objects: readonly LoadedCodeObject[],
  names: Names,
  args: IsaArgs,
  level: number,
  maxBytes: number,
  skipped: ReadonlyArray<{ file: string; reason: string }>,
): { body: Record<string, unknown>; kernelsLeftOut: number } {
  const l = LEVELS[level]!;
  let kernelsLeftOut = 0;
  const rows = objects
    .map((o) => ({ o, kernels: o.info.kernels.filter((k) => kernelMatches(k, names, args.kernel)).sort(byConcern) }))
    .filter((x) => x.kernels.length > 0 || !args.kernel);
  const shown = rows.slice(0, l.objects);
  for (const r of rows.slice(l.objects)) kernelsLeftOut += r.kernels.length;
  const codeObjects = shown.map(({ o, kernels }) => {
    const kept = kernels.slice(0, l.kernels).map((k) => kernelRow(k, names, l.nameChars));
    const left = kernels.length - kept.length;
    kernelsLeftOut += left;
    return {
      file: o.info.file,
      processor: o.info.processor,
      kernels: left > 0 ? [...kept, { more: left, text: `+${left} more` }] : kept,
      ...(o.info.occupancyNote ? { occupancyNote: o.info.occupancyNote } : {}),
    };
  });
  const objectsLeft = rows.length - shown.length;
  return {
    body: {
      codeObjects,
      ...(objectsLeft > 0 ? { codeObjectsMore: `+${objectsLeft} more code objects` } : {}),
      skipped: skipped.slice(0, l.objects === Infinity ? 20 : 2),
      filter: args.kernel ?? null,
      budget: { maxBytes, level, kernelsLeftOut },
    },
    kernelsLeftOut,
  };
}

/** The answer at the most generous level that fits, with the disassembly's leading lines in the room left. */
export function isaBody(
  objects: readonly LoadedCodeObject[],
  names: Names,
  args: IsaArgs,
  skipped: ReadonlyArray<{ file: string; reason: string }>,
  disassembly: IsaDisassembly | { error: string } | null,
): Record<string, unknown> {
  const maxBytes = args.max_bytes ?? ISA_DEFAULT_MAX_BYTES;
  const disasmMeta =
    disassembly === null ? null : 'error' in disassembly ? disassembly : { ...disassembly, text: '', shownLines: 0 };
  let body: Record<string, unknown> = {};
  for (let level = 0; level < LEVELS.length; level++) {
    body = { ...atLevel(objects, names, args, level, maxBytes, skipped).body, disassembly: disasmMeta };
    if (Buffer.byteLength(answerJson(body)) <= maxBytes) break;
  }
  if (disassembly && !('error' in disassembly) && disasmMeta && !('error' in disasmMeta)) {
    // the leading lines that fit in what is left (each line's JSON-escaped bytes, the fence's around them)
    let room = maxBytes - Buffer.byteLength(answerJson(body)) - 160;
    const lines = disassembly.text.replace(/\n$/, '').split('\n');
    const shown: string[] = [];
    for (const line of lines) {
      const cost = Buffer.byteLength(JSON.stringify(line)) - 1; // quotes out, a \n in
      if (cost > room) break;
      room -= cost;
      shown.push(line);
    }
    const rest = lines.length - shown.length;
    disasmMeta.shownLines = shown.length;
    disasmMeta.text = fenced(
      rest > 0 ? [...shown, `… ${rest} more lines: read ${disassembly.uri}`] : shown,
      'untrusted-disassembly',
    );
    body = { ...body, disassembly: disasmMeta };
  }
  return body;
}
