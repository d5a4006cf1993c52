// Per benchmark case: GPU MODE's evaluators open one rocTX range per case, and the summary puts each kernel
// dispatch in the innermost range open when it was launched. A case's kernels carry calls and total time; their
// min/max/spread and resources are those of the kernel over the whole run (`kernel` names it in `kernels`).
import type { DigestCase, DigestCaseKernel } from '../../core/protocol/profileDigest';
import type { TraceSummary } from '../../core/protocol/traceSummary';
import { shortKernelName } from '../shortName';
import type { DigestCaps } from './caps';
import { cutList, roundShare } from './lists';

export function casesOf(summary: TraceSummary, kernelIds: ReadonlyMap<string, string>, caps: DigestCaps) {
  const ranges = summary.markers.filter((m) => m.kernels.length > 0 || m.totalNs > 0);
  const all: DigestCase[] = ranges.map((m) => {
    const kernelNs = m.kernels.reduce((n, k) => n + k.totalNs, 0);
    const rows: DigestCaseKernel[] = m.kernels.map((k) => ({
      kernel: kernelIds.get(k.name) ?? null,
      shortName: shortKernelName(k.name),
      calls: k.calls,
      totalNs: k.totalNs,
      meanNs: k.calls > 0 ? k.totalNs / k.calls : 0,
      sharePercent: kernelNs > 0 ? roundShare((100 * k.totalNs) / kernelNs) : 0,
    }));
    return {
      name: m.name,
      calls: m.calls,
      rangeNs: m.totalNs,
      kernelNs,
      kernelCalls: m.kernels.reduce((n, k) => n + k.calls, 0),
      kernels: cutList(rows, caps.caseKernels, rows.length, (kept) =>
        kernelNs > 0 ? (100 * (kernelNs - kept.reduce((n, k) => n + k.totalNs, 0))) / kernelNs : null,
      ),
    };
  });
  const totalKernelNs = all.reduce((n, c) => n + c.kernelNs, 0);
  return cutList(all, caps.cases, all.length, (kept) =>
    totalKernelNs > 0 ? (100 * (totalKernelNs - kept.reduce((n, c) => n + c.kernelNs, 0))) / totalKernelNs : null,
  );
}
