// The trace toolkit: rocprof outputs (rocprofv3 CSV and rocpd, legacy rocprof v1, GPU MODE profile zips) to one
// TraceSummary. vscode-free; used by the runner, the CLI and the extension.
export { summarizePath, type SummarizeOptions } from './summarize';
export { TraceInputError } from './errors';
export { shortKernelName } from './shortName';
export { createCsvScanner, CsvFormatError, fieldText, fieldNumber, type CsvRow, type CsvScanner } from './csvScanner';
export { BusyTracker } from './busy';
export { traceSummarySchema, type TraceSummary } from '../core/protocol/traceSummary';
export { compareSummaries, compareKernels } from './compare';
export type { TraceComparison } from '../core/protocol/traceComparison';
export {
  rooflineSchema,
  speedOfLightSchema,
  type Roofline,
  type RooflineKernel,
  type RooflinePeaks,
  type SpeedOfLight,
} from '../core/protocol/roofline';
