// A TraceSummary (plus what the caller knows: fingerprints, code objects, the evaluator's result, links, a
// baseline) to one ProfileDigest within a byte budget: the digest is built at the most generous cap level whose
// JSON fits, lists cut with `+N more (share x%)` entries, never a value cut in the middle. Same input, same bytes.
import { KernelRunnerError } from '../../core/errors';
import {
  PROFILE_DIGEST_SCHEMA_VERSION,
  type DigestCounters,
  type DigestEvaluator,
  type DigestKernel,
  type DigestLink,
  type DigestWarning,
  type ProfileDigest,
} from '../../core/protocol/profileDigest';
import type { TraceSummary } from '../../core/protocol/traceSummary';
import type { CodeObjectInfo } from '../codeObjects/read';
import { applyBaseline, type BaselineInput } from './baseline';
import { CAP_LEVELS, DEFAULT_MAX_BYTES, MIN_MAX_BYTES, type DigestCaps } from './caps';
import { casesOf } from './cases';
import { digestKernel } from './kernels';
import { hotspotsOf } from './hotspots';
import { cutList, isMore, leftOut } from './lists';
import { withPrecision } from './precision';
import { provenanceOf, type ProvenanceInput } from './provenance';
import { ranksOf } from './ranks';
import { warningsOf } from './warnings';
import { wholeRunOf } from './wholeRun';

export interface DigestInput extends ProvenanceInput {
  /** Code objects of the archive (src/trace/codeObjects): registers, LDS, scratch, spills and occupancy per kernel. */
  codeObjects?: readonly CodeObjectInfo[];
  evaluator?: DigestEvaluator | null;
  links?: readonly DigestLink[];
  /** Warnings of the caller's own (code objects not read ...), listed first. */
  notes?: readonly DigestWarning[];
  baseline?: BaselineInput | null;
  /** Byte budget of the JSON text (default 16 KiB). */
  maxBytes?: number;
}

export class DigestBudgetError extends KernelRunnerError {
  override readonly name = 'DigestBudgetError';
  readonly code = 'TRACE_DIGEST_BUDGET';
}

function countersOf(summary: TraceSummary, caps: DigestCaps): ProfileDigest['counters'] {
  if (!summary.counters) return null;
  const rows: DigestCounters[] = summary.counters.map((k) => ({
    kernel: k.shortName,
    dispatches: k.dispatches,
    counters: cutList(
      k.counters.map((c) => ({ name: c.name, mean: c.mean, min: c.min, max: c.max })),
      caps.countersPerKernel,
      k.counters.length,
      () => null,
    ),
  }));
  return cutList(rows, caps.counterKernels, rows.length, () => null);
}

function atLevel(
  summary: TraceSummary,
  input: DigestInput,
  caps: DigestCaps,
  level: number,
  maxBytes: number,
  rankHotspots = true,
): ProfileDigest {
  const objects = input.codeObjects ?? [];
  const rows = summary.kernels.map((row, i) => digestKernel(summary, row, i, objects, caps.fullNames));
  const kernelTotal = summary.kernelTotals.totalNs;
  const kernels = cutList<DigestKernel>(rows, caps.kernels, summary.kernelTotals.distinct, (kept) =>
    kernelTotal > 0 ? (100 * (kernelTotal - kept.reduce((n, k) => n + k.totalNs, 0))) / kernelTotal : null,
  );
  const kept = new Map(rows.slice(0, caps.kernels).map((k, i) => [summary.kernels[i]!.name, k.id]));
  const notes = [...(input.notes ?? [])];
  const warnings = warningsOf(summary, notes);
  let digest: ProfileDigest = {
    schemaVersion: PROFILE_DIGEST_SCHEMA_VERSION,
    kind: 'kernel-runner/profile-digest',
    provenance: provenanceOf(summary, input),
    evaluator: input.evaluator ?? null,
    cases: casesOf(summary, kept, caps),
    kernels,
    run: wholeRunOf(summary, caps),
    counters: countersOf(summary, caps),
    roofline: null,
    hotspots: hotspotsOf(
      summary.hotspots,
      level,
      rankHotspots ? (summary.ranks?.imbalance[0]?.slowestRank ?? null) : null,
    ),
    baseline: null,
    ...(summary.ranks ? { ranks: ranksOf(summary.ranks, caps) } : {}),
    warnings: cutList(warnings, caps.warnings, warnings.length, () => null),
    links: [...(input.links ?? [])],
    budget: { maxBytes, level, entriesLeftOut: 0, exceeded: false },
  };
  if (input.baseline) digest = applyBaseline(digest, summary, input.baseline, input.evaluator ?? null, caps);
  digest = withPrecision(digest);
  digest.budget.entriesLeftOut = entriesLeftOut(digest);
  return digest;
}

/** Entries of the summary's lists the digest does not show. */
function entriesLeftOut(d: ProfileDigest): number {
  let n =
    leftOut(d.cases) +
    leftOut(d.kernels) +
    leftOut(d.run.copies) +
    leftOut(d.run.api.top) +
    leftOut(d.run.idleGaps?.longest) +
    leftOut(d.warnings) +
    leftOut(d.counters) +
    leftOut(d.ranks?.ranks) +
    leftOut(d.ranks?.peerCopies) +
    leftOut(d.baseline?.peerCopies);
  for (const c of d.cases) if ('kernels' in c) n += leftOut(c.kernels);
  for (const c of d.counters ?? []) if ('counters' in c) n += leftOut(c.counters);
  for (const kernels of [d.hotspots?.kernels, d.hotspots?.slowestRank?.kernels]) {
    n += leftOut(kernels);
    for (const k of kernels ?? []) if (!isMore(k)) n += leftOut(k.stalls) + leftOut(k.lines) + leftOut(k.instructions);
  }
  return n;
}

/** The digest as its bytes: compact JSON and a newline (what `summarize --digest` prints). */
export function digestText(d: ProfileDigest): string {
  return `${JSON.stringify(d)}\n`;
}

export function buildDigest(summary: TraceSummary, input: DigestInput): ProfileDigest {
  const maxBytes = input.maxBytes ?? DEFAULT_MAX_BYTES;
  if (!Number.isInteger(maxBytes) || maxBytes < MIN_MAX_BYTES)
    throw new DigestBudgetError(`the digest's byte budget must be a whole number >= ${MIN_MAX_BYTES}, not ${maxBytes}`);
  let last: ProfileDigest | undefined;
  for (const [level, caps] of CAP_LEVELS.entries()) {
    last = atLevel(summary, input, caps, level, maxBytes);
    if (Buffer.byteLength(digestText(last)) <= maxBytes) return last;
  }
  // the slowest rank's hot spots are the last thing given up: a budget the bare digest fits without them
  if (last?.hotspots?.slowestRank) {
    const level = CAP_LEVELS.length - 1;
    last = atLevel(summary, input, CAP_LEVELS[level]!, level, maxBytes, false);
    if (Buffer.byteLength(digestText(last)) <= maxBytes) return last;
  }
  const bare = last as ProfileDigest;
  bare.budget.exceeded = true;
  return bare;
}
