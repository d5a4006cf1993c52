import type { Command } from 'commander';
import { CliExit } from '../exit';
import { renderHotspots, renderProcessHotspots } from '../render/hotspots';
import { TraceInputError } from '../../trace/errors';
import { hotspotsPath } from '../../trace/pcSampling/hotspots';
import type { PcHotspots } from '../../core/protocol/pcSampling';
import { examplesHelp } from '../helpExamples';

interface HotspotsCliOptions {
  kernel?: string;
  json?: boolean;
  top?: string;
}

export function register(program: Command): void {
  program
    .command('hotspots')
    .description(
      'where inside each kernel its PC samples fell: hottest source lines and instructions, shares, stall reasons',
    )
    .argument(
      '<path>',
      'a *_pc_sampling_host_trap.csv / *_pc_sampling_stochastic.csv, a rocprofv3 results.json, a folder or a profile zip',
    )
    .option('--kernel <name>', 'only kernels whose name contains this text')
    .option('--top <n>', 'lines and instructions shown per kernel', '10')
    .option(
      '--json',
      'print {kernels: [{name, samples, lines, instructions, ...}], method, intervalUnit, interval, ..., processes: [{rank, pid, host, samples, kernels}] of a multi-process profile} as JSON (every line and instruction)',
    )
    .addHelpText(
      'after',
      examplesHelp([
        'kernel-runner hotspots kernel-runner-traces/',
        'kernel-runner hotspots results_pc_sampling_stochastic.csv --kernel gemm --top 5',
      ]),
    )
    .action(async (path: string, opts: HotspotsCliOptions) => {
      const top = Number(opts.top);
      if (!Number.isInteger(top) || top < 1) throw new CliExit(`--top takes a whole number >= 1, not "${opts.top}"`, 2);
      let hot: PcHotspots;
      try {
        hot = await hotspotsPath(path);
      } catch (err) {
        if (err instanceof TraceInputError) throw new CliExit(err.message, 2);
        throw err;
      }
      if (opts.kernel !== undefined) {
        const want = opts.kernel;
        const kernels = hot.kernels.filter((k) => k.name.includes(want));
        if (kernels.length === 0) {
          const names = hot.kernels
            .slice(0, 5)
            .map((k) => k.name)
            .join(', ');
          throw new CliExit(
            `no sampled kernel matches "${want}" (sampled: ${names}${hot.kernels.length > 5 ? ', ...' : ''})`,
            2,
          );
        }
        const processes = hot.processes?.map((p) => ({
          ...p,
          kernels: p.kernels.filter((k) => k.name.includes(want)),
        }));
        hot = { ...hot, kernels, ...(processes ? { processes } : {}) };
      }
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(hot, null, 2)}\n`);
        return;
      }
      const bold =
        process.stdout.isTTY === true && !process.env.NO_COLOR ? (s: string) => `\x1b[1m${s}\x1b[0m` : undefined;
      const lines = renderHotspots(hot, { top, instructions: true, bold });
      if (hot.processes)
        lines.push('', bold ? bold('Per rank') : 'Per rank', ...renderProcessHotspots(hot, { top, bold }));
      for (const w of hot.warnings) lines.push(`Warning: ${w}`);
      process.stdout.write(`${lines.join('\n')}\n`);
    });
}
