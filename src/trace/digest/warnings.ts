// What the digest's reader must know before trusting it: how much of the run the cases cover, what was cut or
// estimated, the files not read, the summary's own warnings and cross-checks.
import type { DigestWarning } from '../../core/protocol/profileDigest';
import type { TraceSummary } from '../../core/protocol/traceSummary';

export function warningsOf(summary: TraceSummary, extra: readonly DigestWarning[]): DigestWarning[] {
  const out: DigestWarning[] = [];
  const hot = summary.hotspots;
  if (summary.kernelTotals.calls === 0)
    out.push({
      kind: 'coverage',
      text: hot
        ? 'no kernel dispatches in the trace (no kernel trace): only the PC-sampling hot spots are digested (hotspots)'
        : 'no kernel dispatches and no PC samples in the trace: nothing to digest (is this rocprofv3 output: a profile zip, its folder or a rocpd .db?)',
    });
  if (hot && hot.samples === 0)
    out.push({ kind: 'coverage', text: 'PC sampling ran but recorded no samples: hotspots has no kernels' });
  const ra = summary.rangeAttribution;
  if (summary.markers.length === 0 && summary.kernelTotals.calls > 0) {
    out.push({
      kind: 'coverage',
      text: "no rocTX ranges in the trace: no per-case breakdown (cases is empty); the whole run's kernels are listed",
    });
  }
  if (ra && ra.inRanges < ra.dispatches) {
    out.push({
      kind: 'coverage',
      text: `${ra.dispatches - ra.inRanges} of ${ra.dispatches} kernel dispatches ran outside any rocTX range: in no case (attribution by ${ra.by})`,
    });
  }
  for (const m of summary.markers) {
    if (m.kernels.length === 0 && m.totalNs > 0 && ra)
      out.push({ kind: 'coverage', text: `range "${m.name}" has no kernels` });
  }
  if (summary.kernels.length < summary.kernelTotals.distinct) {
    out.push({
      kind: 'truncation',
      text: `the summary lists ${summary.kernels.length} of ${summary.kernelTotals.distinct} distinct kernels`,
    });
  }
  const truncatedLaunches = summary.kernels.filter((k) => k.launchesTruncated).length;
  if (truncatedLaunches)
    out.push({
      kind: 'truncation',
      text: `${truncatedLaunches} kernel(s) had more launch configurations than the summary keeps`,
    });
  if (summary.agents.some((a) => !a.busyExact) || summary.timeline?.exact === false) {
    out.push({
      kind: 'truncation',
      text: 'busy time or timeline estimated by the bounded-memory interval merge (very large trace)',
    });
  }
  if (summary.busyCovers === 'copies-only')
    out.push({
      kind: 'coverage',
      text: 'kernel times come from stats files only: busy time covers copies, idle time is unknown',
    });
  for (const s of summary.skipped) out.push({ kind: 'skipped', text: `${s.path}: ${s.reason}` });
  for (const w of summary.warnings) out.push({ kind: 'summary', text: w });
  for (const c of summary.checks) for (const m of c.mismatches) out.push({ kind: 'check', text: `${c.what}: ${m}` });
  return [...extra, ...out];
}
