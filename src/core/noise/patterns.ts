import type { LineKind } from './types';

// The profiler's line formats, from shared/docs/rocprof.md and the real logs in shared/fixtures/rocprof/.
// Each pattern needs the line to START with the profiler's own prefix: a program line that merely mentions
// "perfetto" or "rocprofv3" stays the program's.

// Perfetto SDK: `[<secs>.<ms>] <file.cc:line> message`; the `file:line` column is padded on the left in recent
// SDKs and on the right in older ones (`[329.254] perfetto.cc:33197       Producer connected`).
const PERFETTO = /^\[ *\d+\.\d{3}\] +\S+\.(?:cc|cpp|cxx|c|h|hh|hpp):\d+(?: |$)/;

// glog: `Lyyyymmdd hh:mm:ss.uuuuuu threadid file:line] message` (glog before 0.7 writes `Lmmdd`).
const GLOG = /^[IWEF](?:\d{4})?\d{4} \d{2}:\d{2}:\d{2}\.\d{6} +\S+ [^\s\]]+:\d+\](?: |$)/;

// The rocprofv3 Python wrapper: `[rocprofv3] Warning: ...`, `[rocprofv3] Fatal error: ...`.
const ROCPROFV3 = /^\[rocprofv3\](?: |$)/;
const ROCPROFV3_FATAL = /^\[rocprofv3\] +(?:fatal|error)/i;

// Legacy rocprof v1 and its roctracer: `RPL: ...`, `ROCProfiler: ...` (also spelt `ROCPRofiler:`/`ROCprofiler:`),
// `ROCTracer (pid=123): ...` / `ROCtracer (517):`.
const LEGACY = /^(?:RPL: |rocprofiler: |roctracer \((?:pid=)?\d+\):)/i;

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
    return 'program';
  }
  if ((c === 0x52 || c === 0x72 /* R r */) && LEGACY.test(text)) return 'legacy';
  return 'program';
}

// Multi-line blocks of legacy rocprof v1 whose follow-up lines have no prefix. They are recognised only right
// after their header line (see `createLegacyBlockTracker`), never on their own.
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
const RPL_INPUT_LINE = /^ +(?:(?:gpu_index|kernel|range) =.*|\d+ traces|(\d+) metrics)$/;
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
        kind !== 'legacy' ? 'none' : RPL_INPUT_HEADER.test(text) ? 'rpl-input' : ROCTRACER_HEADER.test(text) ? 'roctracer' : 'none';
      return kind;
    },
    reset(): void {
      block = 'none';
    },
  };
}
