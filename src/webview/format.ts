// The results webview's formatters: core's (src/core/format, shared with the CLI and the extension host) in their
// default, readable form (three significant digits, '–' for a missing value). One argument each, so that they can
// be handed to map() as they are.
import * as format from '../core/format/index';

type Value = number | null | undefined;

export const formatNs = (ns: Value): string => format.formatNs(ns);
export const formatSeconds = (s: Value): string => format.formatSeconds(s);
export const formatBytes = (b: Value): string => format.formatBytes(b);
export const formatPercent = (p: Value): string => format.formatPercent(p);
export const formatCount = (n: Value): string => format.formatCount(n);
export const formatBandwidth = (gbps: Value): string => format.formatBandwidth(gbps);
export const formatDim = (d: readonly [number, number, number] | null): string => format.formatDim(d);
export const formatMeanErr = (meanNs: number | undefined, errNs: number | undefined): string =>
  format.formatMeanErr(meanNs, errNs);
export const formatSignedNs = (ns: Value): string => format.formatSignedNs(ns);
export const formatRatio = (r: Value): string => format.formatRatio(r);
export const formatCounterValue = (v: Value): string => format.formatCounterValue(v);
