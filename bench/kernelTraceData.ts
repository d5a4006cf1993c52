// Generates a realistic ROCm 7.0 rocprofv3 `kernel_trace.csv` for the summarize benchmark: ~300 distinct
// kernels with long quoted template names (mean ~600 characters, commas inside, one with doubled quotes), call
// counts skewed like a real run, four queues on one GPU launched round-robin-ish so dispatches overlap across
// queues, host synchronisations now and then (idle gaps: ~80,000 busy islands), rows in completion order (not
// sorted by start). Deterministic for a seed; rewritten only when the
// parameters change (a .meta.json beside it records them).
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import { seededRandom as rng } from '../test/support/random';
export {};

export interface KernelTraceParams {
  rows: number;
  kernels: number;
  seed: number;
  /** Added to every timestamp (decimal ns, exact): '12000000000000000' puts them past 2^53 (a host up ~150 days). */
  offsetNs?: string;
  /** The Agent_Id of every row (default `Agent 4`). */
  agent?: string;
  /** Seeds the rows apart from the kernels (one job's ranks: the same kernels, their own timings). */
  rowSeed?: number;
  /** The file's name in `dir` (default `bench_<rows>[_plus<offset>]_kernel_trace.csv`). */
  fileName?: string;
}

export const HEADER =
  '"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id",' +
  '"Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count",' +
  '"Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"';

interface KernelSpec {
  name: string;
  weight: number;
  baseNs: number;
  vgpr: number;
  accum: number;
  sgpr: number;
  lds: number;
  scratch: number;
  wg: number;
  grids: Array<[number, number, number]>;
}

function makeKernels(count: number, next: () => number): KernelSpec[] {
  const pick = <T>(xs: T[]): T => xs[Math.floor(next() * xs.length)] as T;
  const ns = [
    'ck_tile',
    'at::native',
    'aiter',
    'triton',
    'hipblaslt',
    'rocprim::detail',
    'ck::tensor_operation::device',
  ];
  const bases = [
    'kentry',
    'elementwise_kernel',
    'gemm_xdl_kernel',
    'reduce_kernel',
    'softmax_warp_forward',
    'fmha_fwd_kernel',
    'transpose_tile',
    'layernorm_fwd',
    'fused_moe_kernel',
    'scan_by_key_kernel',
    'rms_norm_kernel',
    'topk_kernel',
  ];
  const types = ['_Float16', 'float', 'ck_tile::bf16_t', 'ck_tile::fp8_t', 'int', 'unsigned int', 'double'];
  const layouts = ['ck_tile::tensor_layout::gemm::RowMajor', 'ck_tile::tensor_layout::gemm::ColumnMajor'];
  const seq = (): string =>
    `ck_tile::sequence<${pick([32, 64, 128, 256])}, ${pick([32, 64, 128, 256])}, ${pick([16, 32, 64])}>`;
  const templateArg = (depth: number): string => {
    const r = next();
    if (depth > 3 || r < 0.25) return pick(types);
    if (r < 0.4) return seq();
    if (r < 0.5) return pick(layouts);
    if (r < 0.6) return String(Math.floor(next() * 512));
    const inner = Array.from({ length: 1 + Math.floor(next() * 4) }, () => templateArg(depth + 1)).join(', ');
    return `${pick(ns)}::${pick(['TileGemmShape', 'GemmPipelineProblem', 'Traits', 'Epilogue', 'Policy', 'BlockTile'])}<${inner}>`;
  };
  const out: KernelSpec[] = [];
  const seen = new Set<string>();
  while (out.length < count) {
    const target = 60 + Math.floor(next() * next() * 2100); // skewed: mean ~ 600 characters
    let name: string;
    const style = next();
    if (style < 0.55) {
      // no commas: plain names and single-argument templates (about 40% of dispatches have no comma)
      name = `${pick(bases)}_${out.length}_${'x'.repeat(Math.max(0, Math.min(target, 700) - 20))}`;
      if (next() < 0.5) name = `_Z${name.length}${name}v`;
    } else {
      const args: string[] = [];
      let len = 0;
      while (len < target) {
        const a = templateArg(0);
        args.push(a);
        len += a.length + 2;
      }
      name = `void ${pick(ns)}::${pick(bases)}<${out.length}, ${args.join(', ')}>(${pick(types)}*, ${pick(types)} const*, int, int)`;
    }
    if (out.length === 7) name = `void quoted_kernel<"tag", ${out.length}>(char const*)`;
    if (seen.has(name)) continue;
    seen.add(name);
    const gridCount = next() < 0.8 ? 1 : 1 + Math.floor(next() * 4);
    out.push({
      name,
      weight: 1 / Math.pow(out.length + 1, 0.9),
      baseNs: Math.round(2000 * Math.pow(1000, next())), // 2 µs .. 2 ms
      vgpr: pick([8, 16, 32, 64, 128, 256]),
      accum: pick([0, 0, 4, 128, 256]),
      sgpr: pick([16, 32, 48, 96, 112]),
      lds: pick([0, 0, 4096, 16384, 65536]),
      scratch: pick([0, 0, 0, 16]),
      wg: pick([64, 128, 256, 512, 1024]),
      grids: Array.from({ length: gridCount }, () => [pick([256, 1024, 4096, 65536, 262144]), pick([1, 1, 8, 128]), 1]),
    });
  }
  return out;
}

const csvQuote = (s: string): string => `"${s.replaceAll('"', '""')}"`;

/** Writes the file unless an identical one exists; returns its path. */
export async function ensureKernelTrace(dir: string, params: KernelTraceParams): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const file = path.join(
    dir,
    params.fileName ?? `bench_${params.rows}${params.offsetNs ? `_plus${params.offsetNs}` : ''}_kernel_trace.csv`,
  );
  const meta = `${file}.meta.json`;
  const wanted = JSON.stringify({ ...params, generator: 5 });
  if (existsSync(file) && existsSync(meta) && readFileSync(meta, 'utf8') === wanted) return file;

  let next = rng(params.seed);
  const kernels = makeKernels(params.kernels, next);
  if (params.rowSeed !== undefined) next = rng(params.rowSeed);
  const agent = csvQuote(params.agent ?? 'Agent 4');
  const quotedNames = kernels.map((k) => csvQuote(k.name));
  const cumulative: number[] = [];
  let sum = 0;
  for (const k of kernels) cumulative.push((sum += k.weight));
  const pickKernel = (): number => {
    const r = next() * sum;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cumulative[mid] as number) < r) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };

  const offset = params.offsetNs ? BigInt(params.offsetNs) : null;
  const queues = 4;
  const clock = Array.from({ length: queues }, () => 1_550_151_853_029_637 + Math.floor(next() * 5000));
  // completion-ordered output: dispatches wait in a small buffer and leave in order of end time
  const pendingEnds: number[] = [];
  const pendingRows: string[] = [];
  const out = createWriteStream(file, { highWaterMark: 1 << 20 });
  let block: string[] = [];
  const flushBlock = async (): Promise<void> => {
    if (!out.write(block.join(''))) await once(out, 'drain');
    block = [];
  };
  block.push(`${HEADER}\n`);
  for (let i = 1; i <= params.rows; i++) {
    // mostly the least advanced queue launches next (a scheduler), sometimes any queue: overlap, bounded drift
    let q = 0;
    if (next() < 0.8) {
      for (let j = 1; j < queues; j++) if ((clock[j] as number) < (clock[q] as number)) q = j;
    } else {
      q = Math.floor(next() * queues);
    }
    if (next() < 0.08) {
      // the host synchronises (timing loop, hipDeviceSynchronize): every queue waits, then an idle gap
      const t = Math.max(...clock) + 5000 + Math.floor(next() * 45000);
      for (let j = 0; j < queues; j++) clock[j] = t;
    }
    const kIndex = pickKernel();
    const k = kernels[kIndex] as KernelSpec;
    const start = (clock[q] as number) + Math.floor(next() * next() * 20000);
    const dur = Math.max(500, Math.round(k.baseNs * (0.8 + 0.4 * next())));
    const end = start + dur;
    clock[q] = end;
    const grid = k.grids[Math.floor(next() * k.grids.length)] as [number, number, number];
    const [s, e] = offset === null ? [start, end] : [offset + BigInt(start), offset + BigInt(end)];
    const row = `"KERNEL_DISPATCH",${agent},${q + 1},${q},834304,${i},${kIndex + 10},${quotedNames[kIndex]},${i},${s},${e},${k.lds},${k.scratch},${k.vgpr},${k.accum},${k.sgpr},${k.wg},1,1,${grid[0] * k.wg},${grid[1]},${grid[2]}\n`;
    // insert by end time into the small completion buffer
    let at = pendingEnds.length;
    while (at > 0 && (pendingEnds[at - 1] as number) > end) at--;
    pendingEnds.splice(at, 0, end);
    pendingRows.splice(at, 0, row);
    if (pendingRows.length > 16) {
      pendingEnds.shift();
      block.push(pendingRows.shift() as string);
    }
    if (block.length >= 2048) await flushBlock();
  }
  block.push(...pendingRows);
  await flushBlock();
  out.end();
  await once(out, 'finish');
  writeFileSync(meta, wanted);
  return file;
}
