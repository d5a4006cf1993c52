// The CSV scanner's fast path for rows that repeat the row before but for two fields (RepeatedFields with
// tail = head + 2: a long-layout counter_collection.csv, 40 rows a dispatch that differ only in Counter_Name and
// Counter_Value), in WebAssembly (wasm/repeatedRows.c: 16-byte SIMD compares of what the rows share). The
// scanner copies the chunk it scans into the instance's memory and asks for the run of rows from one on that
// qualify; it sets their fields itself. One instance per thread, made on first use; where WebAssembly cannot run
// there is none, and the scanner reads every row in JavaScript with the same result.
import { REPEATED_ROWS_WASM } from './wasm/repeatedRowsWasm';

/** Rows one call reports at most. */
export const REPEATED_ROWS_MAX = 1024;
/** A row's flags: its name is in quotes; its number is all digits. */
export const REPEATED_QUOTED_NAME = 1;
export const REPEATED_INTEGER = 2;

const PAGE = 64 * 1024;
/** Pages the memory starts with: the module's own data and stack, the answers, and a 1 MiB chunk with room. */
const INITIAL_PAGES = 24;

/** What is used of the WebAssembly API (the project's TypeScript libraries do not declare it). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Memory: new (descriptor: { initial: number }) => WasmMemory;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

type RepeatedRowsFn = (
  data: number,
  pos: number,
  len: number,
  stop: number,
  prevStart: number,
  prefixLen: number,
  prevTail: number,
  tailLen: number,
  out: number,
  values: number,
  maxRows: number,
) => number;

export class RepeatedRows {
  /**
   * Per row taken: where it starts, where its name ends (before a closing quote), where its number ends (offsets
   * in the chunk), and its flags (REPEATED_QUOTED_NAME, REPEATED_INTEGER).
   */
  out!: Int32Array;
  /** Per row taken: its number. */
  values!: Float64Array;
  /** Rows taken so far (for tests). */
  rowsTaken = 0;
  /** Which load() the memory holds (another scanner's load replaces a chunk: the scanner loads it again). */
  stamp = 0;
  /**
   * A scanner is handing rows it took to its reader: a scanner its reader runs meanwhile reads in JavaScript
   * (a load or take of its own would overwrite the rows not handed yet).
   */
  busy = false;
  private readonly memory: WasmMemory;
  private readonly fn: RepeatedRowsFn;
  private readonly outAt: number;
  private readonly valuesAt: number;
  private readonly dataAt: number;
  private bytes!: Uint8Array;

  constructor(wasm: WasmApi) {
    const module = new wasm.Module(Buffer.from(REPEATED_ROWS_WASM, 'base64'));
    this.memory = new wasm.Memory({ initial: INITIAL_PAGES });
    const { exports } = new wasm.Instance(module, { env: { memory: this.memory } });
    this.fn = exports.repeated_rows as RepeatedRowsFn;
    const heapBase = (exports.__heap_base as { value: number }).value;
    this.outAt = (heapBase + 15) & ~15;
    this.valuesAt = this.outAt + REPEATED_ROWS_MAX * 4 * 4;
    this.dataAt = this.valuesAt + REPEATED_ROWS_MAX * 8;
    this.views();
  }

  /** Views of the memory (again after it grew: growing detaches the old ones). */
  private views(): void {
    this.bytes = new Uint8Array(this.memory.buffer);
    this.out = new Int32Array(this.memory.buffer, this.outAt, REPEATED_ROWS_MAX * 4);
    this.values = new Float64Array(this.memory.buffer, this.valuesAt, REPEATED_ROWS_MAX);
  }

  /** Copies the chunk the scanner now reads into the memory (growing it for a longer chunk); returns its stamp. */
  load(chunk: Uint8Array): number {
    const need = this.dataAt + chunk.length;
    if (need > this.bytes.length) {
      this.memory.grow(Math.ceil((need - this.bytes.length) / PAGE));
      this.views();
    }
    this.bytes.set(chunk, this.dataAt);
    return ++this.stamp;
  }

  /**
   * The rows from `pos` of the loaded chunk (`len` bytes) that repeat the row before (at `prevStart`, its tail at
   * `prevTail`) but for their name and number, none starting at or after `stop`: their count, their offsets and
   * flags in `out` and numbers in `values`.
   */
  take(
    pos: number,
    len: number,
    stop: number,
    prevStart: number,
    prefixLen: number,
    prevTail: number,
    tailLen: number,
  ): number {
    const { dataAt, outAt, valuesAt } = this;
    const k = this.fn(
      dataAt,
      pos,
      len,
      stop,
      prevStart,
      prefixLen,
      prevTail,
      tailLen,
      outAt,
      valuesAt,
      REPEATED_ROWS_MAX,
    );
    this.rowsTaken += k;
    return k;
  }
}

let shared: RepeatedRows | null | undefined;

/** This thread's instance, or null where WebAssembly cannot run it. */
export function repeatedRows(): RepeatedRows | null {
  if (shared === undefined) {
    const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
    try {
      shared = wasm ? new RepeatedRows(wasm) : null;
    } catch {
      shared = null;
    }
  }
  return shared;
}
