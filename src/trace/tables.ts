// Aggregates for one run (one output set): kernels by name with their launch configurations, copies by
// direction, API calls by family + name, markers by message. Readers fill them; sets merge into the whole.
import { ProfilerControlLog } from './profilerControl';
import { addDuration, emptyStats, mergeStats, type DurationStats } from './durationStats';
import { FOLDED_AGENTS, FOLDED_KERNELS, FOLDED_NAMES, keyWithin } from './keyLimits';
import { MAX_COPY_DIRECTIONS, MAX_DISTINCT_NAMES, MAX_PEER_PAIRS } from './limits';

/** Launch configuration values, in this order; NaN = not in the input. */
const LAUNCH_FIELDS = [
  'gridX',
  'gridY',
  'gridZ',
  'wgX',
  'wgY',
  'wgZ',
  'vgpr',
  'accumVgpr',
  'sgpr',
  'ldsBytes',
  'scratchBytes',
] as const;
export const LAUNCH_WIDTH = LAUNCH_FIELDS.length;
/** Distinct launch configurations kept per kernel; the rest are counted as truncated. */
const MAX_LAUNCHES = 32;

interface LaunchAgg {
  values: Float64Array;
  calls: number;
}

export interface KernelAgg {
  name: string;
  stats: DurationStats;
  launches: LaunchAgg[];
  launchesTruncated: boolean;
  /** Index of the launch that matched last: consecutive dispatches of a kernel mostly share one. */
  lastLaunch: number;
  agentIds: Set<string>;
}

export interface CopyAgg {
  direction: string;
  stats: DurationStats;
  bytes: number;
  /** Calls whose size was known; bytes are reported only if all calls had one. */
  bytesCalls: number;
}

/** Device-to-device copies from one GPU agent to another (or to itself: an on-device copy). */
export interface PeerCopyAgg {
  srcAgent: string;
  dstAgent: string;
  stats: DurationStats;
  bytes: number;
  bytesCalls: number;
}

/** The pair past MAX_PEER_PAIRS distinct pairs: both ends folded (keyLimits.ts). */
export const FOLDED_PAIR = `${FOLDED_AGENTS}\u0000${FOLDED_AGENTS}`;

export interface ApiAgg {
  name: string;
  domain: string | null;
  family: string;
  stats: DurationStats;
}

export interface MarkerAgg {
  name: string;
  stats: DurationStats;
  /** Kernels launched inside this range (see ranges.ts), by kernel name. */
  kernels: Map<string, { calls: number; totalNs: number }>;
  /** How `kernels` were found (the weaker of the two when runs differ), null before any was. */
  attribution: 'correlation' | 'gpu-overlap' | null;
}

/** The weaker attribution of two (GPU overlap is a guess, correlation is exact). */
function weakerAttribution(a: MarkerAgg['attribution'], b: MarkerAgg['attribution']): MarkerAgg['attribution'] {
  if (a === 'gpu-overlap' || b === 'gpu-overlap') return 'gpu-overlap';
  return a ?? b;
}

/** Counts `calls` dispatches of `kernel` (`totalNs` of GPU time) as launched inside range `m`. */
export function addRangeKernel(m: MarkerAgg, kernel: string, calls: number, totalNs: number): void {
  const name = keyWithin(m.kernels, kernel, MAX_DISTINCT_NAMES, FOLDED_KERNELS);
  const k = m.kernels.get(name);
  if (k) {
    k.calls += calls;
    k.totalNs += totalNs;
  } else {
    m.kernels.set(name, { calls, totalNs });
  }
}

/** One counter of one kernel over its dispatches. */
export interface CounterAgg {
  samples: number;
  sum: number;
  min: number;
  max: number;
}

export interface KernelCounterAgg {
  kernel: string;
  dispatches: number;
  counters: Map<string, CounterAgg>;
}

function newKernelAgg(name: string): KernelAgg {
  return { name, stats: emptyStats(), launches: [], launchesTruncated: false, lastLaunch: -1, agentIds: new Set() };
}

function sameLaunch(a: Float64Array, b: Float64Array): boolean {
  for (let i = 0; i < LAUNCH_WIDTH; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    if (x !== y && !(Number.isNaN(x) && Number.isNaN(y))) return false;
  }
  return true;
}

/** Counts `calls` dispatches with launch `values` (the array is copied when it is new). */
export function addLaunch(k: KernelAgg, values: Float64Array, calls = 1): void {
  const last = k.launches[k.lastLaunch];
  if (last && sameLaunch(last.values, values)) {
    last.calls += calls;
    return;
  }
  for (let i = 0; i < k.launches.length; i++) {
    const l = k.launches[i] as LaunchAgg;
    if (sameLaunch(l.values, values)) {
      l.calls += calls;
      k.lastLaunch = i;
      return;
    }
  }
  if (k.launches.length >= MAX_LAUNCHES) {
    k.launchesTruncated = true;
    return;
  }
  k.launches.push({ values: Float64Array.from(values), calls });
  k.lastLaunch = k.launches.length - 1;
}

/** API family from a rocprofv3 domain: `HIP_RUNTIME_API_EXT` → `HIP`, `HSA_CORE_API` → `HSA`, `RCCL_API` → `RCCL`. */
function apiFamily(domain: string | null): string {
  if (!domain) return 'HIP';
  const head = domain.split('_')[0] ?? domain;
  return head.toUpperCase() || 'OTHER';
}

export function isMarkerDomain(domain: string): boolean {
  return domain.toUpperCase().startsWith('MARKER') || domain.toUpperCase().startsWith('ROCTX');
}

export class RunTables {
  /** roctxProfilerPause / Resume calls and their windows (profilerControl.ts). */
  readonly control = new ProfilerControlLog();
  readonly kernels = new Map<string, KernelAgg>();
  readonly copies = new Map<string, CopyAgg>();
  /** `DEVICE_TO_DEVICE` copies whose two ends the trace names, by `<source>\0<destination>` agent id. */
  readonly peerCopies = new Map<string, PeerCopyAgg>();
  readonly api = new Map<string, ApiAgg>();
  readonly markers = new Map<string, MarkerAgg>();
  /** Dispatches put against ranges (ranges.ts); null when no run had both ranges and dispatches. */
  rangeAttribution: {
    by: 'correlation' | 'gpu-overlap';
    dispatches: number;
    inRanges: number;
    otherThread: number;
  } | null = null;

  noteRangeAttribution(by: 'correlation' | 'gpu-overlap', dispatches: number, inRanges: number, otherThread = 0): void {
    const r = this.rangeAttribution;
    this.rangeAttribution = r
      ? {
          by: weakerAttribution(r.by, by) as typeof by,
          dispatches: r.dispatches + dispatches,
          inRanges: r.inRanges + inRanges,
          otherThread: r.otherThread + otherThread,
        }
      : { by, dispatches, inRanges, otherThread };
  }

  /** Hardware counters per kernel name (counter_collection). */
  readonly counters = new Map<string, KernelCounterAgg>();

  kernelCounters(name: string): KernelCounterAgg {
    const kernel = keyWithin(this.counters, name, MAX_DISTINCT_NAMES, FOLDED_KERNELS);
    let k = this.counters.get(kernel);
    if (!k) {
      k = { kernel, dispatches: 0, counters: new Map() };
      this.counters.set(kernel, k);
    }
    return k;
  }

  /** The kernel's aggregate; past MAX_DISTINCT_NAMES names, the one of FOLDED_KERNELS (keyLimits.ts). */
  kernel(kernelName: string): KernelAgg {
    const name = keyWithin(this.kernels, kernelName, MAX_DISTINCT_NAMES, FOLDED_KERNELS);
    let k = this.kernels.get(name);
    if (!k) {
      k = newKernelAgg(name);
      this.kernels.set(name, k);
    }
    return k;
  }

  copy(raw: string): CopyAgg {
    const direction = keyWithin(this.copies, raw, MAX_COPY_DIRECTIONS, FOLDED_NAMES);
    let c = this.copies.get(direction);
    if (!c) {
      c = { direction, stats: emptyStats(), bytes: 0, bytesCalls: 0 };
      this.copies.set(direction, c);
    }
    return c;
  }

  apiCall(apiName: string, domain: string | null): ApiAgg {
    const family = apiFamily(domain);
    let name = apiName;
    let key = `${family}\u0000${name}`;
    if (this.api.size >= MAX_DISTINCT_NAMES && !this.api.has(key)) {
      name = FOLDED_NAMES;
      key = `${family}\u0000${name}`;
    }
    let a = this.api.get(key);
    if (!a) {
      a = { name, domain, family, stats: emptyStats() };
      this.api.set(key, a);
    }
    return a;
  }

  marker(markerName: string): MarkerAgg {
    const name = keyWithin(this.markers, markerName, MAX_DISTINCT_NAMES, FOLDED_NAMES);
    let m = this.markers.get(name);
    if (!m) {
      m = { name, stats: emptyStats(), kernels: new Map(), attribution: null };
      this.markers.set(name, m);
    }
    return m;
  }

  /** The pair's aggregate; past MAX_PEER_PAIRS pairs, the one of FOLDED_PAIR. */
  peerCopy(srcAgent: string, dstAgent: string): PeerCopyAgg {
    const key = keyWithin(this.peerCopies, `${srcAgent}\u0000${dstAgent}`, MAX_PEER_PAIRS, FOLDED_PAIR);
    let p = this.peerCopies.get(key);
    if (!p) {
      const folded = key === FOLDED_PAIR;
      p = {
        srcAgent: folded ? FOLDED_AGENTS : srcAgent,
        dstAgent: folded ? FOLDED_AGENTS : dstAgent,
        stats: emptyStats(),
        bytes: 0,
        bytesCalls: 0,
      };
      this.peerCopies.set(key, p);
    }
    return p;
  }

  /**
   * A copy of `durationNs`; `srcAgent` / `dstAgent` (agent ids, null when the trace does not name them) put a
   * device-to-device copy in its pair too.
   */
  addCopy(
    direction: string,
    durationNs: number,
    bytes: number | null,
    srcAgent: string | null = null,
    dstAgent: string | null = null,
  ): void {
    const known = bytes !== null && Number.isFinite(bytes);
    const c = this.copy(direction);
    addDuration(c.stats, durationNs);
    if (known) {
      c.bytes += bytes;
      c.bytesCalls++;
    }
    if (direction !== 'DEVICE_TO_DEVICE' || srcAgent === null || dstAgent === null) return;
    const p = this.peerCopy(srcAgent, dstAgent);
    addDuration(p.stats, durationNs);
    if (known) {
      p.bytes += bytes;
      p.bytesCalls++;
    }
  }

  mergeInto(target: RunTables): void {
    this.control.mergeInto(target.control);
    for (const k of this.kernels.values()) {
      const t = target.kernel(k.name);
      mergeStats(t.stats, k.stats);
      for (const l of k.launches) addLaunch(t, l.values, l.calls);
      t.launchesTruncated ||= k.launchesTruncated;
      for (const a of k.agentIds) t.agentIds.add(a);
    }
    for (const c of this.copies.values()) {
      const t = target.copy(c.direction);
      mergeStats(t.stats, c.stats);
      t.bytes += c.bytes;
      t.bytesCalls += c.bytesCalls;
    }
    for (const p of this.peerCopies.values()) {
      const t = target.peerCopy(p.srcAgent, p.dstAgent);
      mergeStats(t.stats, p.stats);
      t.bytes += p.bytes;
      t.bytesCalls += p.bytesCalls;
    }
    for (const a of this.api.values()) mergeStats(target.apiCall(a.name, a.domain).stats, a.stats);
    for (const m of this.markers.values()) {
      const t = target.marker(m.name);
      mergeStats(t.stats, m.stats);
      for (const [kernel, k] of m.kernels) addRangeKernel(t, kernel, k.calls, k.totalNs);
      t.attribution = weakerAttribution(t.attribution, m.attribution);
    }
    if (this.rangeAttribution) {
      const r = this.rangeAttribution;
      target.noteRangeAttribution(r.by, r.dispatches, r.inRanges, r.otherThread);
    }
    for (const k of this.counters.values()) {
      const t = target.kernelCounters(k.kernel);
      t.dispatches += k.dispatches;
      for (const [name, c] of k.counters) addCounterSamples(t, name, c);
    }
  }
}

function addCounterSamples(k: KernelCounterAgg, counter: string, c: CounterAgg): void {
  const name = keyWithin(k.counters, counter, MAX_DISTINCT_NAMES, FOLDED_NAMES);
  const t = k.counters.get(name);
  if (!t) {
    k.counters.set(name, { ...c });
    return;
  }
  t.samples += c.samples;
  t.sum += c.sum;
  if (c.min < t.min) t.min = c.min;
  if (c.max > t.max) t.max = c.max;
}

/** Normalises a copy direction: `MEMORY_COPY_HOST_TO_DEVICE` / `CopyHostToDevice` → `HOST_TO_DEVICE`. */
export function normalizeDirection(raw: string): string {
  const s = raw.trim();
  const v1 = /^Copy(Host|Device)To(Host|Device)$/i.exec(s);
  if (v1) return `${(v1[1] as string).toUpperCase()}_TO_${(v1[2] as string).toUpperCase()}`;
  return s.replace(/^MEMORY_COPY_/i, '').toUpperCase() || 'UNKNOWN';
}

/**
 * Interns names given as raw CSV bytes without making a string per row: a hash of the length, 32 bytes spread
 * over the name and its last 8 picks a slot of an open-addressing table, and a native byte comparison (memcmp)
 * confirms the match. Only a name seen for the first time is decoded. Past `limit` spellings, a new one gets the
 * id of `fold` (keyLimits.ts) and is not kept.
 */
export class BytesInterner {
  /** Raw index + 1 per slot (0: empty). */
  private slots = new Int32Array(1024);
  private readonly hashes: number[] = [];
  private readonly raws: Buffer[] = [];
  private readonly byText = new Map<string, number>();
  readonly texts: string[] = [];
  /** Id of each raw spelling, as an alias of a text id (two spellings of one text share an id). */
  private readonly ids: number[] = [];
  /** The stored raw bytes of the spelling the last idFor found or added (of the row itself when folded). */
  lastRaw: Buffer = Buffer.alloc(0);
  /** Id of `fold`, -1 until a spelling was folded. */
  foldId = -1;

  constructor(
    private readonly limit = MAX_DISTINCT_NAMES,
    private readonly fold = FOLDED_NAMES,
  ) {}

  idFor(buf: Buffer, start: number, end: number, escaped: number): number {
    const len = end - start;
    let h = Math.imul(len, 0x9e3779b1);
    if (len > 0) {
      const step = len <= 40 ? 1 : len >>> 5;
      const sampled = len <= 40 ? end : start + step * 32;
      for (let i = start; i < sampled; i += step) h = Math.imul(h ^ (buf[i] as number), 0x01000193);
      for (let i = Math.max(sampled, end - 8); i < end; i++) h = Math.imul(h ^ (buf[i] as number), 0x01000193);
    }
    const slots = this.slots;
    const mask = slots.length - 1;
    let slot = (h ^ (h >>> 15)) & mask;
    for (let r = slots[slot] as number; r !== 0; r = slots[slot] as number) {
      const raw = this.raws[r - 1] as Buffer;
      if (this.hashes[r - 1] === h && raw.length === len && raw.compare(buf, start, end) === 0) {
        this.lastRaw = raw;
        return this.ids[r - 1] as number;
      }
      slot = (slot + 1) & mask;
    }
    if (this.raws.length >= this.limit) {
      this.lastRaw = buf.subarray(start, end);
      return this.folded();
    }
    const raw = Buffer.from(buf.subarray(start, end));
    let text = raw.toString('utf8');
    if (escaped) text = text.replaceAll('""', '"');
    let id = this.byText.get(text);
    if (id === undefined) {
      id = this.texts.length;
      this.texts.push(text);
      this.byText.set(text, id);
    }
    this.raws.push(raw);
    this.lastRaw = raw;
    this.hashes.push(h);
    this.ids.push(id);
    slots[slot] = this.raws.length;
    if (this.raws.length * 2 > slots.length) this.grow();
    return id;
  }

  /** Forgets every name, keeping its storage (arrays reused keep the element kinds optimised code expects). */
  clear(): void {
    this.slots.fill(0);
    this.hashes.length = 0;
    this.raws.length = 0;
    this.byText.clear();
    this.texts.length = 0;
    this.ids.length = 0;
    this.lastRaw = Buffer.alloc(0);
    this.foldId = -1;
  }

  private grow(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let r = 0; r < this.raws.length; r++) {
      const h = this.hashes[r] as number;
      let slot = (h ^ (h >>> 15)) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = r + 1;
    }
    this.slots = slots;
  }

  idForText(text: string): number {
    let id = this.byText.get(text);
    if (id === undefined && this.texts.length >= this.limit) return this.folded();
    if (id === undefined) {
      id = this.texts.length;
      this.texts.push(text);
      this.byText.set(text, id);
    }
    return id;
  }

  private folded(): number {
    if (this.foldId < 0) {
      this.foldId = this.texts.length;
      this.texts.push(this.fold);
    }
    return this.foldId;
  }
}
