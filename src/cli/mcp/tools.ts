// The MCP server's tools, as plain functions of their arguments: submit (through the one submission workflow of
// src/core/submission), get_run, list_leaderboards, profile_digest, compare, isa. Each returns a small JSON-able
// object; server.ts wraps them for the protocol.
import { KernelRunnerError } from '../../core/errors';
import path from 'node:path';
import { isSubmissionMode, type SubmissionMode } from '../../core/protocol/api';
import { pollIntervalFromEnv, runSubmission } from '../../core/submission/index';
import { compareResultTimings, readResultInput } from '../compareInputs';
import { describeRun, pushOutput, saveResultFile, type RunRecord } from './runs';
import { RunFolderError, type RunFolders } from './runFolders';
import type { Target } from './target';
import type { LoadedCodeObject } from '../../trace/codeObjects/index';
import {
  disassemblyUri,
  isaBody,
  kernelMatches,
  type DisassemblyStore,
  type IsaArgs,
  type IsaDisassembly,
} from './isaAnswer';

export class ToolError extends KernelRunnerError {
  override readonly name = 'ToolError';
  readonly code = 'CLI_MCP_TOOL';
}

export interface ToolContext {
  target: Target;
  /** Where traces, digests and result files are saved. */
  outDir: string;
  folders: RunFolders;
  runs: Map<string, RunRecord>;
  nextRunId: () => string;
}

export interface SubmitArgs {
  file?: string;
  code?: string;
  file_name?: string;
  mode: string;
  leaderboard?: string;
  gpu?: string;
}

export interface CallExtras {
  signal: AbortSignal;
  progress?: (message: string) => void;
}

async function submissionFile(
  ctx: ToolContext,
  args: SubmitArgs,
  runId: string,
): Promise<{ filePath: string; content: Buffer }> {
  if (args.file && args.code !== undefined) throw new ToolError('give file or code, not both');
  if (args.file) {
    const { readSubmissionFile, SubmissionFileError } = await import('../submissionFile');
    try {
      return { filePath: args.file, content: await readSubmissionFile(args.file) };
    } catch (err) {
      throw err instanceof SubmissionFileError ? new ToolError(err.message) : err;
    }
  }
  if (args.code === undefined) throw new ToolError('give file (a path) or code (the source text)');
  const filePath = await ctx.folders.saveSubmission(runId, args.file_name ?? 'submission.py', args.code);
  return { filePath, content: Buffer.from(args.code) };
}

/** A run folder refused (a planted link, a name taken) is the tool's error, said as it is. */
async function inRunFolders<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof RunFolderError) throw new ToolError(err.message);
    throw err;
  }
}

export async function submitTool(
  ctx: ToolContext,
  args: SubmitArgs,
  extras: CallExtras,
): Promise<Record<string, unknown>> {
  if (!isSubmissionMode(args.mode))
    throw new ToolError(`mode takes test, benchmark, leaderboard or profile, not "${args.mode}"`);
  const mode: SubmissionMode = args.mode;
  const id = ctx.nextRunId();
  await inRunFolders(() => ctx.folders.check());
  const { filePath, content } = await inRunFolders(() => submissionFile(ctx, args, id));
  const connection = await ctx.target.connection(extras.signal);
  let finish!: () => void;
  const record: RunRecord = {
    id,
    file: filePath,
    mode,
    state: 'running',
    status: 'submitting',
    outputTail: [],
    done: new Promise<void>((r) => (finish = r)),
  };
  ctx.runs.set(id, record);
  const say = (text: string) => {
    record.status = text;
    extras.progress?.(`${id}${record.jobId !== undefined ? ` (job ${record.jobId})` : ''}: ${text}`);
  };
  const outDir =
    mode === 'profile' ? await inRunFolders(() => ctx.folders.tracesFolder(id)) : path.join(ctx.outDir, 'traces', id);
  try {
    record.outcome = await runSubmission(
      {
        filePath,
        content,
        mode,
        ...(args.leaderboard ? { leaderboard: args.leaderboard } : {}),
        ...(args.gpu ? { gpu: args.gpu } : {}),
      },
      {
        connection,
        surface: 'cli',
        signal: extras.signal,
        pollIntervalMs: pollIntervalFromEnv(),
        traces: {
          outDir,
          downloads: true,
          summarize: async (f) => (await import('../../trace/index')).summarizePath(f),
          digest: async (f, summary) => {
            const { digestPath, configurationOf, sha256Text } = await import('../../trace/digest/index');
            return digestPath(f, {
              summary,
              submission: { file: path.basename(filePath), sha256: sha256Text(content) },
              configuration: configurationOf({
                server: ctx.target.label(),
                mode,
                leaderboard: record.target?.leaderboard,
                gpu: record.target?.gpu,
              }),
              links: [{ rel: 'trace', href: f }],
            });
          },
        },
        onEvent(ev) {
          switch (ev.type) {
            case 'target':
              record.target = { leaderboard: ev.target.leaderboard, gpu: ev.target.gpu };
              break;
            case 'accepted':
              record.jobId = ev.id;
              say(ev.text);
              break;
            case 'status':
              if (ev.changed) say(ev.text);
              break;
            case 'note':
            case 'queue':
            case 'retry':
              say(ev.text);
              break;
            case 'output':
              if (!ev.noise) {
                pushOutput(record, ev.text);
                extras.progress?.(
                  `${id}${record.jobId !== undefined ? ` (job ${record.jobId})` : ''} output: ${ev.text.slice(0, 200)}`,
                );
              }
              break;
            case 'trace-saved':
              say(`trace saved: ${ev.trace.path}`);
              break;
          }
        },
      },
    );
    record.resultFile = await saveResultFile(ctx.folders, record).catch((err: unknown) => {
      record.resultFileError = err instanceof Error ? err.message : String(err);
      return undefined;
    });
  } finally {
    record.state = 'done';
    finish();
  }
  return describeRun(record);
}

export async function getRunTool(
  ctx: ToolContext,
  args: { run_id: string; wait?: boolean },
  extras: CallExtras,
): Promise<Record<string, unknown>> {
  const record = ctx.runs.get(args.run_id);
  if (!record)
    throw new ToolError(
      `no run ${args.run_id} in this session (runs: ${[...ctx.runs.keys()].join(', ') || 'none yet'})`,
    );
  if (record.state === 'running' && args.wait !== false) {
    extras.progress?.(`${record.id}: ${record.status}`);
    await Promise.race([
      record.done,
      new Promise<void>((resolve) => extras.signal.addEventListener('abort', () => resolve(), { once: true })),
    ]);
  }
  return describeRun(record);
}

export async function listLeaderboardsTool(ctx: ToolContext, extras: CallExtras): Promise<Record<string, unknown>> {
  const connection = await ctx.target.connection(extras.signal);
  const boards = await connection.client.listLeaderboards({ signal: extras.signal });
  return {
    service: connection.label,
    leaderboards: boards.map((b) => ({
      name: b.name,
      gpus: b.gpu_types,
      deadline: b.deadline,
      description: (b.description ?? '').slice(0, 300),
    })),
  };
}

export async function profileDigestTool(args: {
  path: string;
  baseline?: string;
  max_bytes?: number;
}): Promise<Record<string, unknown>> {
  const { digestPath, digestText, DigestBudgetError } = await import('../../trace/digest/index');
  const { TraceInputError } = await import('../../trace/index');
  try {
    const digest = await digestPath(args.path, {
      ...(args.max_bytes ? { maxBytes: args.max_bytes } : {}),
      ...(args.baseline ? { baselinePath: args.baseline } : {}),
      links: [{ rel: 'trace', href: path.resolve(args.path) }],
    });
    if (digest.budget.exceeded) {
      // the size it needs as it would be sent when it fits: `exceeded: false` and that size as its maxBytes
      let needed = 0;
      for (let i = 0; i < 3; i++)
        needed = Buffer.byteLength(
          digestText({
            ...digest,
            budget: { ...digest.budget, maxBytes: needed || digest.budget.maxBytes, exceeded: false },
          }),
        );
      throw new ToolError(
        `the digest does not fit in max_bytes ${digest.budget.maxBytes}: its barest form needs ${needed}; ask again with max_bytes at least that`,
      );
    }
    return digest as unknown as Record<string, unknown>;
  } catch (err) {
    if (err instanceof TraceInputError || err instanceof DigestBudgetError) throw new ToolError(err.message);
    throw err;
  }
}

export async function compareTool(args: { a: string; b: string }): Promise<Record<string, unknown>> {
  const { TraceInputError } = await import('../../trace/index');
  const [ra, rb] = await Promise.all([readResultInput(args.a), readResultInput(args.b)]).catch((err: unknown) => {
    throw err instanceof TraceInputError ? new ToolError(err.message) : err;
  });
  if (ra || rb) {
    if (!ra || !rb)
      throw new ToolError(
        `${ra ? args.b : args.a} is not a result file: compare two result_file paths, or two trace paths`,
      );
    const cases = compareResultTimings(ra, rb);
    const out: Record<string, unknown> = { kind: 'evaluator-timings', a: args.a, b: args.b, cases };
    if (ra.traces[0] && rb.traces[0]) out.traces = await traceDigestCompare(ra.traces[0], rb.traces[0]);
    return out;
  }
  return { kind: 'profiles', a: args.a, b: args.b, ...(await traceDigestCompare(args.a, args.b)) };
}

/** Two profiles as B's digest with A as its baseline: per kernel and case, the change with its interval and verdict. */
async function traceDigestCompare(a: string, b: string): Promise<Record<string, unknown>> {
  const { digestPath } = await import('../../trace/digest/index');
  const { TraceInputError } = await import('../../trace/index');
  try {
    const digest = await digestPath(b, {
      baselinePath: a,
      links: [
        { rel: 'trace', href: path.resolve(b) },
        { rel: 'baseline', href: path.resolve(a) },
      ],
    });
    return { digest };
  } catch (err) {
    if (err instanceof TraceInputError) throw new ToolError(err.message);
    throw err;
  }
}

export async function isaTool(args: IsaArgs, store: DisassemblyStore): Promise<Record<string, unknown>> {
  const { loadCodeObjectsPath, CodeObjectError, matchKernels } = await import('../../trace/codeObjects/index');
  const { demangleNames } = await import('../../trace/codeObjects/demangle');
  try {
    const loaded = await loadCodeObjectsPath(args.path);
    if (loaded.objects.length === 0)
      throw new ToolError(
        `${args.path}: no code objects (${loaded.skipped.map((s) => `${s.file}: ${s.reason}`).join('; ') || 'looked for _code_object*.o, *.o, *.co, *.hsaco, *.bundle, *.hipfb, *.fatbin'})`,
      );
    const names = await demangleNames(loaded.objects.flatMap((o) => o.info.kernels.map((k) => k.name)));
    if (args.kernel && !loaded.objects.some((o) => o.info.kernels.some((k) => kernelMatches(k, names, args.kernel))))
      throw new ToolError(`${args.path}: no kernel name holds "${args.kernel}"`);
    let disassembly: IsaDisassembly | { error: string } | null = null;
    if (args.disassemble) {
      const want = args.disassemble;
      let matches = matchKernels(loaded.objects, want);
      if (matches.length === 0)
        matches = loaded.objects.flatMap((object) =>
          object.info.kernels.flatMap((k, kernelIndex) =>
            names.get(k.name) === want || kernelMatches(k, names, want) ? [{ object, kernelIndex }] : [],
          ),
        );
      if (matches.length === 0) throw new ToolError(`${args.path}: no kernel ${want} to disassemble`);
      disassembly = await disassembleOne(matches[0]!.object, matches[0]!.kernelIndex, matches.length - 1, names, store);
    }
    return isaBody(loaded.objects, names, args, loaded.skipped, disassembly);
  } catch (err) {
    if (err instanceof CodeObjectError) throw new ToolError(err.message);
    throw err;
  }
}

async function disassembleOne(
  object: LoadedCodeObject,
  kernelIndex: number,
  alsoMatched: number,
  names: ReadonlyMap<string, string>,
  store: DisassemblyStore,
): Promise<IsaDisassembly | { error: string }> {
  const { findObjdump, disassembleKernel, DisassemblyError, HOW_TO_GET_OBJDUMP } =
    await import('../../trace/codeObjects/index');
  const info = object.info;
  const kernel = info.kernels[kernelIndex]!;
  const objdump = await findObjdump();
  if (!objdump) return { error: `no llvm-objdump with the AMDGPU target: ${HOW_TO_GET_OBJDUMP}` };
  if (!info.processor) return { error: `${info.file}: no target to disassemble ${kernel.name} for` };
  try {
    const text = await disassembleKernel({
      objdump,
      bytes: object.bytes,
      processor: info.processor,
      kernel: kernel.name,
    });
    const name = names.get(kernel.name) ?? kernel.name;
    const id = store.add(`${name} (${info.file}, ${info.processor})`, text);
    return {
      kernel: name,
      file: info.file,
      processor: info.processor,
      uri: disassemblyUri(id),
      lines: text.split('\n').length - 1,
      bytes: Buffer.byteLength(text),
      alsoMatched,
      text,
    };
  } catch (err) {
    if (err instanceof DisassemblyError) return { error: `${info.file}: ${err.message}` };
    throw err;
  }
}
