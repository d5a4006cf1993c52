/**
 * The input given to the trace toolkit is missing or holds nothing it can read. The message is one line that
 * names the path and what was looked for, fit to print as a CLI error.
 */
import { KernelRunnerError } from '../core/errors';
export class TraceInputError extends KernelRunnerError {
  override readonly name = 'TraceInputError';
  readonly code = 'TRACE_INPUT';
  readonly type = 'trace-input' as const;
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
  }
}

/** What a rocprof output set is made of, for error messages. */
export const LOOKED_FOR =
  'rocprofv3 CSVs (*_kernel_trace.csv, *_memory_copy_trace.csv, *_hip_api_trace.csv, *_marker_api_trace.csv, ' +
  '*_agent_info.csv, *_counter_collection.csv, *_stats.csv), a rocpd database (*_results.db), legacy rocprof files (results.stats.csv, ' +
  'results.json) or a zip of them';
