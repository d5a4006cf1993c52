// One set of number and duration formatters for the CLI, the extension host and the results webview. Pure (no
// Node, no DOM, no imports outside this folder): the webview bundles it. Defaults are the readable form (three
// significant digits, '–' for a missing value); CLI tables pass { align: true, missing: '-' } for fixed decimals.
export { formatBandwidth, formatBytes, formatCount, formatCounterValue, formatDim, formatPercent } from './numbers';
export {
  formatElapsed,
  formatMeanErr,
  formatNs,
  formatScore,
  formatSeconds,
  formatTimeLeft,
  formatWait,
} from './durations';
export { formatChange, formatRatio, formatSignedNs } from './changes';
export {
  counterPassesText,
  formatFlopRate,
  formatIntensity,
  formatPeakBandwidth,
  formatRoofPercent,
  roofText,
} from './roofline';
export { processChoices, stallLabel } from './pcSampling';
export {
  cutPairChanges,
  gpuEndLabel,
  gpuMatrix,
  gpuPairLabel,
  gpuRankLabel,
  MAX_MATRIX_GPUS,
  morePairsText,
  pairChangeMark,
  peerCopyText,
  rankOfGpu,
  rankPairsBeyondMatrix,
  type GpuPair,
  type RankGpus,
} from './peerCopies';
export { rankOfAgent } from './ranks';
export { showBidiControls } from './bidi';
