import type { LineKind } from './types';

// The profiler's line formats, from shared/docs/rocprof.md and the real logs in shared/fixtures/rocprof/.
// Each pattern needs the line to START with the profiler's own prefix: a program line that merely mentions
// "perfetto" or "rocprofv3" stays the program's.

// Perfetto SDK: `[<secs>.<ms>] <file.cc:line> message`; the `file:line` column is padded on the left in recent
// SDKs and on the right in older ones (`[329.254] perfetto.cc:33197       Producer connected`).
const PERFETTO = /^\[ *\d+\.\d{3}\] +\S+\.(?:cc|cpp|cxx|c|h|hh|hpp):\d+(?: |$)/;

// glog: `Lyyyymmdd hh:mm:ss.uuuuuu threadid file:line] message` (glog before 0.7 writes `Lmmdd`).
const GLOG = /^[IWEF](?:\d{4})?\d{4} \d{2}:\d{2}:\d{2}\.\d{6} +\S+ [^\s\]]+:\d+\](?: |$)/;

// The rocprofv3 Python wrapper: `[rocprofv3] Warning: ...`, `[rocprofv3] Fatal error: ...`. This covers the
// one-line deprecation warning for direct CSV/PFTrace/OTF2 output (ROCm/rocm-systems PR #9870, rocprofv3.py's
// warn_deprecated_output_formats) and its `--stats has no effect ...` sibling.
const ROCPROFV3 = /^\[rocprofv3\](?: |$)/;
const ROCPROFV3_FATAL = /^\[rocprofv3\] +(?:fatal|error)/i;

// Legacy rocprof v1 and its roctracer: `RPL: ...`, `ROCProfiler: ...` (also spelt `ROCPRofiler:`/`ROCprofiler:`),
// `ROCTracer (pid=123): ...` / `ROCtracer (517):`.
const LEGACY = /^(?:RPL: |rocprofiler(?: pid\(\d+\))?: |roctracer \((?:pid=)?\d+\):)/i;

// Legacy v1 lines without a prefix, each in the exact form its script prints:
// `File '/abs/results.csv' is generating` (tblextr.py, dform.py, mem_manager.py, once per output file),
// `scan ops data 100:2345` / `scan HIP API data 0:17` (tblextr.py progress, padded with spaces, ended by CR),
// and rpl_run.sh's banner `WARNING: We are phasing out development and support for roctracer/rocprofiler/...`.
const LEGACY_BARE = [
  /^File '[^']+' is generating$/,
  /^scan (?:ops|[A-Za-z]+ API) data \d+:\d+ *$/,
  /^WARNING: We are phasing out development and support for roctracer\/rocprofiler\/rocprof\/rocprofv2 in favor of rocprofiler-sdk\/rocprofv3/,
];

// The first line of v1's per-run input block (`  gpu_index = 0,1`: tool.cpp prints `"  " + field + " = " + values`).
// It opens the block, so `  kernel =`, `  range =`, `  4 metrics` after it are noise too (see below).
const RPL_GPU_INDEX = /^ {2}gpu_index =(?: .*)?$/;

/** Classifies one ANSI-free line on its own (no context). */
export function classifyLine(text: string): LineKind {
  const c = text.charCodeAt(0);
  if (c === 0x5b /* [ */) {
    if (text.charCodeAt(1) === 0x72 /* r */) {
      if (ROCPROFV3.test(text)) return ROCPROFV3_FATAL.test(text) ? 'fatal' : 'rocprofv3';
    } else if (PERFETTO.test(text)) {
      return 'perfetto';
    }
    return 'program';
  }
  if (c === 0x49 || c === 0x57 || c === 0x45 || c === 0x46 /* I W E F */) {
    const d = text.charCodeAt(1);
    if (d >= 0x30 && d <= 0x39 && GLOG.test(text)) return c === 0x46 ? 'fatal' : 'glog';
  }
  if ((c === 0x52 || c === 0x72) /* R r */ && LEGACY.test(text)) return 'legacy';
  if (c === 0x46 /* F */ || c === 0x73 /* s */ || c === 0x57 /* W */) {
    for (const re of LEGACY_BARE) if (re.test(text)) return 'legacy';
  } else if (c === 0x20 && RPL_GPU_INDEX.test(text)) {
    return 'legacy';
  }
  return 'program';
}

// Multi-line blocks of legacy rocprof v1 whose follow-up lines have no prefix. They are recognised only right
// after their header line or its `  gpu_index =` line (see `createLegacyBlockTracker`), never on their own.
//   ROCProfiler: input from "/tmp/rpl_data_.../input0.xml"
//     gpu_index =
//     kernel =
//     range =
//     4 metrics
//       L2CacheHit, VFetchInsts, VWriteInsts, MemUnitStalled
//     0 traces
//   ROCtracer (517):
//       HIP-trace(*)
const RPL_INPUT_HEADER = /^rocprofiler: input from /i;
const RPL_INPUT_LINE = /^ +(?:(?:gpu_index|kernel|range|set) =.*|\d+ traces|(\d+) metrics)$/;
const RPL_METRIC_LIST = /^ {3,}[A-Za-z0-9_[\]]+(?:, *[A-Za-z0-9_[\]]+)*$/;
const ROCTRACER_HEADER = /^roctracer \((?:pid=)?\d+\):/i;
const ROCTRACER_LINE = /^ +[A-Za-z]+(?:-[A-Za-z]+)*-trace\([^)]*\)$/;

type LegacyBlock = 'none' | 'rpl-input' | 'rpl-metric-list' | 'roctracer';

/** Follows legacy v1 header lines so that their unprefixed follow-up lines count as noise. */
export function createLegacyBlockTracker() {
  let block: LegacyBlock = 'none';

  function followUp(text: string): boolean {
    if (block === 'roctracer') return ROCTRACER_LINE.test(text);
    if (block === 'rpl-metric-list' && RPL_METRIC_LIST.test(text)) {
      block = 'rpl-input';
      return true;
    }
    const m = RPL_INPUT_LINE.exec(text);
    if (!m) return false;
    block = m[1] !== undefined && m[1] !== '0' ? 'rpl-metric-list' : 'rpl-input';
    return true;
  }

  return {
    /** `kind` is the line's context-free kind; returns its kind in context. */
    next(text: string, kind: LineKind): LineKind {
      if (kind === 'program' && block !== 'none' && followUp(text)) return 'legacy';
      block =
        kind !== 'legacy'
          ? 'none'
          : RPL_INPUT_HEADER.test(text) || RPL_GPU_INDEX.test(text)
            ? 'rpl-input'
            : ROCTRACER_HEADER.test(text)
              ? 'roctracer'
              : 'none';
      return kind;
    },
    reset(): void {
      block = 'none';
    },
  };
}
