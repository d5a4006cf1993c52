// The whole run's kernels for the digest: the summary's rows, with the most used launch configuration, the
// registers, LDS and scratch (from a code object of the archive when one defines the kernel, else as the profiler
// recorded them) and an occupancy estimate.
import type { DigestKernel, DigestOccupancy } from '../../core/protocol/profileDigest';
import type { KernelRow, TraceSummary } from '../../core/protocol/traceSummary';
import { estimateOccupancy, limitsFor } from '../codeObjects/occupancy';
import { matchKernels } from '../codeObjects/match';
import type { CodeObjectInfo, CodeObjectKernel } from '../codeObjects/read';

const MAX_FULL_NAME = 240;

/** The code object kernel a profiled name means: one exact match, else one by base name; none when ambiguous. */
function codeObjectKernelFor(
  objects: readonly CodeObjectInfo[],
  name: string,
): { kernel: CodeObjectKernel; object: CodeObjectInfo } | null {
  const matches = matchKernels(
    objects.map((info) => ({ info, bytes: Buffer.alloc(0) })),
    name,
  );
  const distinct = new Map(matches.map((m) => [m.object.info.kernels[m.kernelIndex]!.name, m]));
  if (distinct.size !== 1) return null;
  const m = matches[0]!;
  return { kernel: m.object.info.kernels[m.kernelIndex]!, object: m.object.info };
}

function archOf(summary: TraceSummary, row: KernelRow): string | null {
  const agent = summary.agents.find((a) => row.agentIds.includes(a.id) && a.name);
  return agent?.name ?? null;
}

/** The VGPRs a wave allocates: on targets with AccVGPRs in one file, ArchVGPRs rounded up to 4 plus AccVGPRs (LLVM getTotalNumVGPRs). */
function totalVgprs(vgpr: number, accum: number | null): number {
  return accum ? Math.ceil(vgpr / 4) * 4 + accum : vgpr;
}

function occupancyFromTrace(arch: string | null, row: KernelRow): DigestOccupancy | null {
  const launch = row.launches[0];
  const limits = arch ? limitsFor(arch) : undefined;
  if (!launch || !limits || launch.vgpr === null || launch.sgpr === null || !launch.workgroup) return null;
  const [x, y, z] = launch.workgroup;
  const o = estimateOccupancy(limits, {
    vgprCount: totalVgprs(launch.vgpr, launch.accumVgpr),
    sgprCount: launch.sgpr,
    ldsBytes: launch.ldsBytes ?? 0,
    workgroupSize: x * y * z,
    workgroupSizeFrom: 'given',
  });
  return { wavesPerSimd: o.wavesPerSimd, maxWavesPerSimd: o.maxWavesPerSimd, limitedBy: o.limitedBy, from: 'trace' };
}

export function digestKernel(
  summary: TraceSummary,
  row: KernelRow,
  index: number,
  objects: readonly CodeObjectInfo[],
  fullNames: boolean,
): DigestKernel {
  const launch = row.launches[0];
  const fromObject = objects.length ? codeObjectKernelFor(objects, row.name) : null;
  let resources: DigestKernel['resources'] = null;
  let occupancy: DigestOccupancy | null = null;
  if (fromObject) {
    const k = fromObject.kernel;
    resources = {
      vgpr: k.vgprCount,
      accumVgpr: k.agprCount,
      sgpr: k.sgprCount,
      ldsBytes: k.ldsBytes,
      scratchBytes: k.scratchBytes,
      vgprSpills: k.vgprSpillCount,
      sgprSpills: k.sgprSpillCount,
      from: 'code-object',
    };
    if (k.occupancy)
      occupancy = {
        wavesPerSimd: k.occupancy.wavesPerSimd,
        maxWavesPerSimd: k.occupancy.maxWavesPerSimd,
        limitedBy: k.occupancy.limitedBy,
        from: 'code-object',
      };
  } else if (
    launch &&
    (launch.vgpr !== null || launch.sgpr !== null || launch.ldsBytes !== null || launch.scratchBytes !== null)
  ) {
    resources = {
      vgpr: launch.vgpr,
      accumVgpr: launch.accumVgpr,
      sgpr: launch.sgpr,
      ldsBytes: launch.ldsBytes,
      scratchBytes: launch.scratchBytes,
      vgprSpills: null,
      sgprSpills: null,
      from: 'trace',
    };
  }
  occupancy ??= occupancyFromTrace(archOf(summary, row), row);
  return {
    id: `k${index + 1}`,
    shortName: row.shortName,
    name: fullNames && row.name !== row.shortName && row.name.length <= MAX_FULL_NAME ? row.name : null,
    calls: row.calls,
    totalNs: row.totalNs,
    avgNs: row.avgNs,
    minNs: row.minNs,
    maxNs: row.maxNs,
    stddevNs: row.stddevNs,
    percent: row.percent,
    launch: launch
      ? { grid: launch.grid, workgroup: launch.workgroup, calls: launch.calls, configurations: row.launches.length }
      : null,
    resources,
    occupancy,
  };
}
