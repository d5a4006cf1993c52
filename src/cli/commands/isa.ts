import { delimiter } from 'node:path';
import type { Command } from 'commander';
import { CliExit } from '../exit';
import { kernelSummary, renderCodeObjects } from '../render/codeObjects';
import {
  CodeObjectError,
  DisassemblyError,
  HOW_TO_GET_OBJDUMP,
  LLVM_DIRS,
  disassembleKernel,
  findObjdump,
  loadCodeObjectsPath,
  matchKernels,
  type CodeObjectReport,
} from '../../trace/codeObjects/index';
import { examplesHelp } from '../helpExamples';

interface IsaCliOptions {
  json?: boolean;
  disasm?: string;
  objdump?: string;
  workgroupSize?: string;
}

interface Disassembly {
  file: string;
  bundleEntry: string | null;
  processor: string;
  kernel: string;
  text: string;
}

export function register(program: Command): void {
  program
    .command('isa')
    .description(
      "kernels of AMDGPU code objects (a .o/.co/.hsaco, an offload bundle, a folder or a profile zip's _code_object*.o): registers, LDS, scratch, occupancy; --disasm for one kernel's ISA",
    )
    .argument(
      '<path>',
      'code object, offload bundle, folder, or profile zip (kernelbot ships _code_object<N>.o, GPU_DUMP_CODE_OBJECT=1)',
    )
    .option('--json', 'print {codeObjects: [{file, target, kernels: [...]}], skipped} as JSON')
    .option(
      '--disasm <kernel>',
      'disassemble this kernel (its name, its .kd symbol, or a profiled name) with llvm-objdump',
    )
    .option(
      '--objdump <path>',
      `llvm-objdump to use (default: the newest with the AMDGPU target on PATH, else in ${LLVM_DIRS.join(', ')}; KERNEL_RUNNER_LLVM_DIRS=dir:dir replaces that list)`,
    )
    .option(
      '--workgroup-size <n>',
      'workgroup size the LDS occupancy limit assumes (default: reqd_workgroup_size, else max_flat_workgroup_size)',
    )
    .addHelpText(
      'after',
      examplesHelp([
        'kernel-runner isa vector_add                       # a host binary built by hipcc: its offload bundle',
        'kernel-runner isa profile.zip --json',
        'kernel-runner isa kernel.hsaco --disasm vector_add',
      ]),
    )
    .action(async (path: string, opts: IsaCliOptions) => {
      const workgroupSize =
        opts.workgroupSize === undefined ? undefined : positiveInt(opts.workgroupSize, '--workgroup-size');
      let loaded;
      try {
        loaded = await loadCodeObjectsPath(path, { workgroupSize });
      } catch (err) {
        if (err instanceof CodeObjectError) throw new CliExit(err.message, 2);
        throw err;
      }
      const report: CodeObjectReport = { codeObjects: loaded.objects.map((o) => o.info), skipped: loaded.skipped };
      if (report.codeObjects.length === 0) {
        const why = report.skipped.map((s) => `${s.file}: ${s.reason}`).join('; ');
        throw new CliExit(
          `${path}: no code objects${why ? ` (${why})` : ' (looked for _code_object*.o, *.o, *.co, *.hsaco, *.bundle, *.hipfb, *.fatbin)'}`,
          2,
        );
      }

      if (!opts.disasm) {
        process.stdout.write(opts.json ? `${JSON.stringify(report, null, 2)}\n` : renderCodeObjects(report));
        return;
      }
      const matches = matchKernels(loaded.objects, opts.disasm);
      if (matches.length === 0) {
        const names = report.codeObjects.flatMap((c) => c.kernels.map((k) => k.name));
        throw new CliExit(`${path}: no kernel ${opts.disasm} (kernels: ${[...new Set(names)].join(', ')})`, 2);
      }
      let objdump: string | undefined;
      try {
        objdump = await findObjdump({ explicit: opts.objdump, dirs: llvmDirs() });
      } catch (err) {
        if (err instanceof DisassemblyError) throw new CliExit(err.message, 2);
        throw err;
      }
      if (!objdump) {
        // the metadata still shows; the disassembly needs an LLVM with the AMDGPU target
        const dirs = llvmDirs();
        const message = `no llvm-objdump with the AMDGPU target on PATH${dirs.length ? ` or in ${dirs.join(', ')}` : ''}: ${HOW_TO_GET_OBJDUMP}`;
        process.stdout.write(
          opts.json
            ? `${JSON.stringify({ ...report, disassembly: null, disassemblyError: message }, null, 2)}\n`
            : renderCodeObjects(report),
        );
        throw new CliExit(`cannot disassemble ${opts.disasm}: ${message}`, 1);
      }
      const disassembly: Disassembly[] = [];
      for (const m of matches) {
        const info = m.object.info;
        const kernel = info.kernels[m.kernelIndex]!;
        if (!info.processor) throw new CliExit(`${info.file}: no target to disassemble ${kernel.name} for`, 2);
        let text;
        try {
          text = await disassembleKernel({
            objdump,
            bytes: m.object.bytes,
            processor: info.processor,
            kernel: kernel.name,
          });
        } catch (err) {
          if (err instanceof DisassemblyError) throw new CliExit(`${info.file}: ${err.message}`, 1);
          throw err;
        }
        disassembly.push({
          file: info.file,
          bundleEntry: info.bundleEntry,
          processor: info.processor,
          kernel: kernel.name,
          text,
        });
        if (!opts.json)
          process.stdout.write(`${disassembly.length > 1 ? '\n' : ''}${kernelSummary(info, kernel)}\n${text}`);
      }
      if (opts.json) process.stdout.write(`${JSON.stringify({ ...report, disassembly }, null, 2)}\n`);
    });
}

function llvmDirs(): string[] {
  const env = process.env.KERNEL_RUNNER_LLVM_DIRS;
  return env === undefined ? [...LLVM_DIRS] : env.split(delimiter).filter(Boolean);
}

function positiveInt(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1024)
    throw new CliExit(`${flag} takes a whole number from 1 to 1024, not "${value}"`, 2);
  return n;
}
