// The size of what `kernel-runner mcp` sends per tool (the answer's text, as counted against max_bytes), against
// the CLI's full JSON of the same input in the same run (`summarize --json`, `hotspots --json`, `isa --json`): on
// the 1,000,000-dispatch kernel trace of digest.bench.ts, the PC-sampling fixture, and the folder of real gfx942
// (and gfx90a, gfx908) code objects clang-19 builds for the tests. Target (issue 30): every answer within its
// max_bytes (16 KiB by default), the isa answers included.
//
//   node --import tsx bench/mcp-answers.bench.ts        (BENCH_ROWS=1000000 by default)
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { codeObjects } from '../test/support/codeObjects';
import { ensureKernelTrace } from './kernelTraceData';
import { machineLoad, summary as resultLine } from './support';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist/cli.cjs');
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const pcSampling = path.resolve(root, '../shared/fixtures/rocprof/pc-sampling');

function cliJsonBytes(args: string[]): number {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 30 });
  return Buffer.byteLength(r.stdout);
}

const trace = await ensureKernelTrace(path.join(root, 'bench/data'), { rows: ROWS, kernels: 300, seed: 7 });
const built = codeObjects();
console.log(`answer sizes of kernel-runner mcp; ${machineLoad()}`);
const client = new Client({ name: 'bench', version: '1' });
await client.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: [cli, 'mcp', '--out', path.join(root, 'bench/data/mcp')],
  }),
);
const rows: Array<{ tool: string; input: string; budget: number; sent: number; peer: number; peerName: string }> = [];
async function measure(tool: string, input: string, args: Record<string, unknown>, budget: number, peer: string[]) {
  const r = await client.callTool({ name: tool, arguments: args }, undefined, { timeout: 600_000 });
  const text = (r.content as Array<{ type: string; text?: string }>)[0]?.text ?? '';
  if (r.isError) throw new Error(`${tool} ${input}: ${text}`);
  rows.push({
    tool,
    input,
    budget,
    sent: Buffer.byteLength(text),
    peer: cliJsonBytes(peer),
    peerName: peer.slice(0, 1).concat(peer.slice(-1)).join(' '),
  });
}
try {
  await measure('profile_digest', 'bench trace', { path: trace }, 16384, ['summarize', trace, '--json']);
  await measure('profile_digest', 'bench trace', { path: trace, max_bytes: 4096 }, 4096, [
    'summarize',
    trace,
    '--json',
  ]);
  await measure('compare', 'bench trace vs itself', { a: trace, b: trace }, 16384, ['summarize', trace, '--json']);
  await measure('profile_digest', 'pc-sampling', { path: pcSampling }, 16384, ['hotspots', pcSampling, '--json']);
  await measure('profile_digest', 'pc-sampling', { path: pcSampling, max_bytes: 4096 }, 4096, [
    'hotspots',
    pcSampling,
    '--json',
  ]);
  if (typeof built === 'string') console.log(`isa skipped: ${built}`);
  else {
    await measure('isa', 'code-object folder', { path: built.dir }, 16384, ['isa', built.dir, '--json']);
    await measure('isa', 'code-object folder', { path: built.dir, max_bytes: 4096 }, 4096, [
      'isa',
      built.dir,
      '--json',
    ]);
    await measure(
      'isa',
      'gfx942 HIP object + disassembly',
      { path: built.hipObject, disassemble: 'reduce_shared' },
      16384,
      ['isa', built.hipObject, '--json', '--disasm', 'reduce_shared'],
    );
  }
} finally {
  await client.close();
}
for (const r of rows)
  console.log(
    `${r.tool.padEnd(15)} ${r.input.padEnd(32)} max_bytes ${String(r.budget).padStart(5)}: sent ${String(r.sent).padStart(6)} B; CLI's full JSON (${r.peerName}) ${String(r.peer).padStart(9)} B; ratio ${(r.sent / r.peer).toFixed(4)}`,
  );
const met = rows.every((r) => r.sent <= r.budget);
console.log(resultLine('mcp-answers', `${rows.length} answers`, 'each within its max_bytes', met));
if (!met) process.exitCode = 1;
