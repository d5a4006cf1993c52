// The limits of src/trace, in one place: each named, with why it is what it is. They keep a hostile or corrupt
// input (a zip bomb, a trace with millions of names, a garbage code object) from taking the machine's memory or
// time; real rocprof output is far inside every one of them.
import { totalmem } from 'node:os';
import type { ZipLimits } from './sources';

/** Distinct kernel names (also API calls, rocTX ranges and counter names) kept per table; real runs have far fewer. */
export const MAX_DISTINCT_NAMES = 10_000;

/**
 * Distinct timings kept per dispatch of a counter collection (rocprof-compute's pmc_perf.csv has one per counter
 * pass, tens of them; rocprofv3 one): past it a hostile file's timing per row would make each row a lookup in a
 * growing list.
 */
export const MAX_PASS_TIMINGS = 1024;

/** Distinct agents kept: a node has tens of GPUs (CPX partitions included), a multi-host summary a few hundred. */
export const MAX_AGENTS = 1024;

/** Distinct copy directions kept (rocprof has a handful). */
export const MAX_COPY_DIRECTIONS = 64;

/** Distinct (source GPU, destination GPU) pairs of device-to-device copies kept: 64 GPUs all to all. */
export const MAX_PEER_PAIRS = 4096;

/** What a zip may unpack to: 16 GiB in all, and no entry deflated more than 200x (rocprof CSVs 10-40x, a bomb's zeros ~1000x). */
export const DEFAULT_ZIP_LIMITS: ZipLimits = {
  maxTotalBytes: 16 * 1024 ** 3,
  // rocprof CSVs deflate 10-40x; a zip bomb's zeros about 1000x
  maxRatio: 200,
  ratioFloorBytes: 1024 * 1024,
};

/**
 * Largest results.json parsed in memory (v1 is deprecated; its JSON is read whole, and the parsed events take
 * several times the text): 512 MiB, or a sixteenth of the machine's memory if less.
 */
export const MAX_V1_JSON_BYTES = Math.min(512 * 1024 * 1024, Math.floor(totalmem() / 16));

/**
 * Largest rocpd database loaded: sql.js holds the whole file in WASM memory, beside our copy of its bytes, so a
 * quarter of the machine's memory at most.
 */
export const MAX_ROCPD_BYTES = Math.min(1536 * 1024 * 1024, Math.floor(totalmem() / 4));

/** A kernel trace this large is read by worker threads (smaller ones cost more to split than they gain). */
export const PARALLEL_TRACE_MIN_BYTES = 48 << 20;

/** Largest file read (code objects are a few MB; fat binaries of big libraries some hundreds). */
export const MAX_CODE_OBJECT_BYTES = 256 * 1024 * 1024;

/** Code object bytes read in all from one folder or archive: 1 GiB (a build has megabytes). */
export const MAX_CODE_OBJECTS_TOTAL_BYTES = 1024 * 1024 * 1024;

/** Entries of one offload bundle: a bundle has one per target; a header claiming more is garbage. */
export const MAX_BUNDLE_ENTRIES = 1024;

/** msgpack decoding limits for a code object's metadata note: far past real metadata, short of a hostile note's claims. */
export const METADATA_DECODE_LIMITS = {
  maxStrLength: 1 << 20,
  maxBinLength: 1 << 20,
  maxArrayLength: 1 << 20,
  maxMapLength: 1 << 16,
  maxExtLength: 0,
};

/** Distinct launch configurations a collector keeps (a kernel keeps MAX_LAUNCHES of them); the rest count as truncated. */
export const MAX_LAUNCH_IDS = 1 << 16;

/** Most dispatches a BatchMoments may take between two `take` calls. */
export const MAX_BATCH_DISPATCHES = 1 << 16;

/** Kernel ids below this are looked up by index (rocprofv3 numbers kernels from 1). */
export const SMALL_KERNEL_IDS = 1 << 16;

/** Larger kernel ids guessed at most (a hostile trace may have millions). */
export const MAX_OTHER_IDS = 1 << 16;

/** Bytes per read: a buffer this size stays in a core's cache between the read and the scan. */
export const READ_BYTES = 1 << 17;

/** Chunk size for streaming reads: large chunks keep per-chunk overhead negligible for 700 MB files. */
export const STREAM_CHUNK_BYTES = 1 << 18;
