// The language model tools (package.json's contributes.languageModelTools): what `kernel-runner mcp` offers an
// agent, inside the editor. Submissions go through the Runs of the editor (RunController: the same workflow, Runs
// view and output channel as a Run from the palette) after a confirmation (prepareInvocation); the read-only tools
// (digest, compare, leaderboards) ask nothing. Results are small JSON texts: the digest and the run's summary.
import * as vscode from 'vscode';
import { readFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { isSubmissionMode, type SubmissionMode } from '../../core/protocol/api';
import { errorMessage } from '../../core/errors';
import { failureOf } from '../../core/submission/failure';
import { digestPath } from '../../trace/digest/index';
import type { EditorRun, RunController } from '../runs/controller';
import { digestFileOf } from '../runs/digests';
import type { RunStore } from '../runs/store';
import type { Targets } from '../targets';
import { hooks } from '../ui';

const TOOL_NAMES = {
  submit: 'kernelRunner_submit',
  digest: 'kernelRunner_profileDigest',
  compare: 'kernelRunner_compare',
  leaderboards: 'kernelRunner_listLeaderboards',
} as const;

export interface SubmitInput {
  file?: string;
  mode: string;
  leaderboard?: string;
  gpu?: string;
}

interface DigestInput {
  run_id?: string;
  trace?: string;
}

interface CompareInput {
  baseline: string;
  candidate: string;
}

interface ToolParts {
  runs: RunController;
  store: RunStore;
  targets: Targets;
}

const MODE_WORDS: Record<SubmissionMode, string> = {
  test: 'Run Tests',
  benchmark: 'Benchmark',
  leaderboard: 'Submit to Leaderboard',
  profile: 'Profile',
};

const text = (value: unknown) =>
  new vscode.LanguageModelToolResult([
    new vscode.LanguageModelTextPart(typeof value === 'string' ? value : JSON.stringify(value, null, 1)),
  ]);

/** A path as the agent gave it: absolute, or relative to the first workspace folder. */
function resolvePath(p: string): string {
  const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  return isAbsolute(p) || !root ? p : join(root, p);
}

function fileUri(file: string | undefined): vscode.Uri | undefined {
  if (file) return vscode.Uri.file(resolvePath(file));
  return vscode.window.activeTextEditor?.document.uri;
}

function checkedMode(mode: string): SubmissionMode {
  if (!isSubmissionMode(mode)) throw new Error(`mode takes test, benchmark, leaderboard or profile, not "${mode}"`);
  return mode;
}

/** What the submit tool answers: the run's summary (headline, tests, error, the output's last lines) and its digests. */
function describeRun(run: EditorRun, store: RunStore): Record<string, unknown> {
  const o = run.outcome;
  const stored = run.storedId ? store.get(run.storedId) : undefined;
  const view = run.view;
  const tests = view?.runs.flatMap((r) => r.tests) ?? [];
  const lines = run.log?.shown ?? [];
  return {
    run_id: run.storedId ?? null,
    file: run.file,
    mode: run.mode,
    target: run.target.label,
    leaderboard: run.choice?.leaderboard ?? null,
    gpu: run.choice?.gpu ?? null,
    outcome: view?.outcome ?? o?.kind ?? null,
    passed: o?.passed ?? false,
    summary: stored?.headline ?? null,
    tests: tests.length
      ? { passed: tests.filter((t) => t.passed).length, failed: tests.filter((t) => !t.passed).length }
      : null,
    error: view?.error ?? o?.explanation?.message ?? null,
    failure: o ? failureOf(o) : null,
    output_tail: lines.slice(o?.passed ? -12 : -40),
    digests: (run.digests ?? []).map((d) => ({
      key: d.key,
      trace: d.trace,
      digest_path: d.digestPath ?? null,
      error: d.error ?? null,
      digest: d.digest ?? null,
    })),
    next: nextSteps(run),
  };
}

function nextSteps(run: EditorRun): string[] {
  const o = run.outcome;
  if (!o || o.kind !== 'result') return ['read error, failure and output_tail, fix what they say and submit again'];
  if (!o.passed)
    return ['read failure (its reason and last lines) and output_tail, fix the kernel, submit mode test again'];
  if (run.mode === 'test')
    return ['submit mode benchmark for timings, or mode profile for a digest of where the time goes'];
  if (run.mode === 'profile')
    return [
      `after an edit, profile again and call ${TOOL_NAMES.compare} with this run_id as baseline and the new one as candidate`,
    ];
  return ['profile for a digest of where the time goes'];
}

/** A stored run's first kept trace, or the path itself. */
function tracePathOf(ref: string, store: RunStore): string {
  const run = store.get(ref);
  if (run) {
    const trace = run.traces[0];
    if (!trace) throw new Error(`run ${ref} (${run.file} · ${run.mode}) kept no profile trace: profile it first`);
    return join(store.dirOf(ref), trace);
  }
  if (/^[\w-]+$/.test(ref) && !ref.includes('.'))
    throw new Error(
      `no stored run "${ref}" (newest: ${
        store
          .list()
          .slice(0, 5)
          .map((r) => r.id)
          .join(', ') || 'none'
      })`,
    );
  return resolvePath(ref);
}

class SubmitTool implements vscode.LanguageModelTool<SubmitInput> {
  constructor(private readonly parts: ToolParts) {}

  prepareInvocation(
    options: vscode.LanguageModelToolInvocationPrepareOptions<SubmitInput>,
  ): vscode.PreparedToolInvocation {
    const { file, mode, leaderboard, gpu } = options.input;
    const uri = fileUri(file);
    const name = uri ? vscode.workspace.asRelativePath(uri) : '(no file open)';
    const where = [
      leaderboard ? `leaderboard ${leaderboard}` : 'the leaderboard its directives name',
      gpu ? `GPU ${gpu}` : undefined,
    ]
      .filter(Boolean)
      .join(', ');
    // plain text: the file name is shown as it is, never read as markdown
    const message = `${MODE_WORDS[mode as SubmissionMode] ?? mode}: ${name} will be sent to ${this.parts.targets.describe()} (${where}).`;
    const invocationMessage = `Kernel Runner: ${mode} ${name}`;
    if (hooks.toolsPreApproved) return { invocationMessage };
    return {
      invocationMessage,
      confirmationMessages: { title: `Submit ${name} (${mode}) with Kernel Runner?`, message },
    };
  }

  async invoke(
    options: vscode.LanguageModelToolInvocationOptions<SubmitInput>,
    token: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResult> {
    const { file, leaderboard, gpu } = options.input;
    const mode = checkedMode(options.input.mode);
    const uri = fileUri(file);
    if (!uri) throw new Error('no file: open a kernel file in the editor or pass file (a path)');
    const abort = new AbortController();
    const sub = token.onCancellationRequested(() => abort.abort(new Error('cancelled by the agent')));
    try {
      const run = await this.parts.runs.runFileFor(uri, {
        mode,
        title: MODE_WORDS[mode],
        ...(gpu ? { gpu } : {}),
        ...(leaderboard ? { leaderboard } : {}),
        signal: abort.signal,
        noQuestions: true,
      });
      if ('notRun' in run) throw new Error(`${vscode.workspace.asRelativePath(uri)} did not run: ${run.notRun}`);
      return text(describeRun(run, this.parts.store));
    } finally {
      sub.dispose();
    }
  }
}

class DigestTool implements vscode.LanguageModelTool<DigestInput> {
  constructor(private readonly parts: ToolParts) {}

  prepareInvocation(): vscode.PreparedToolInvocation {
    return { invocationMessage: 'Kernel Runner: reading the profile digest' };
  }

  async invoke(
    options: vscode.LanguageModelToolInvocationOptions<DigestInput>,
  ): Promise<vscode.LanguageModelToolResult> {
    const { run_id, trace } = options.input;
    const store = this.parts.store;
    await store.load();
    const ref = trace ?? run_id ?? store.list().find((r) => r.traces.length)?.id;
    if (!ref) throw new Error('no profiled run is stored yet: profile a file first');
    const path = tracePathOf(ref, store);
    // the digest saved when the run was kept, else made now
    const saved = await readFile(digestFileOf(path), 'utf8').catch(() => undefined);
    return text(
      saved ? (JSON.parse(saved) as unknown) : await digestPath(path, { links: [{ rel: 'trace', href: path }] }),
    );
  }
}

class CompareTool implements vscode.LanguageModelTool<CompareInput> {
  constructor(private readonly parts: ToolParts) {}

  prepareInvocation(): vscode.PreparedToolInvocation {
    return { invocationMessage: 'Kernel Runner: comparing two profiles' };
  }

  async invoke(
    options: vscode.LanguageModelToolInvocationOptions<CompareInput>,
  ): Promise<vscode.LanguageModelToolResult> {
    await this.parts.store.load();
    const a = tracePathOf(options.input.baseline, this.parts.store);
    const b = tracePathOf(options.input.candidate, this.parts.store);
    return text(
      await digestPath(b, {
        baselinePath: a,
        links: [
          { rel: 'trace', href: b },
          { rel: 'baseline', href: a },
        ],
      }),
    );
  }
}

class LeaderboardsTool implements vscode.LanguageModelTool<Record<string, never>> {
  constructor(private readonly parts: ToolParts) {}

  prepareInvocation(): vscode.PreparedToolInvocation {
    return { invocationMessage: 'Kernel Runner: listing leaderboards' };
  }

  async invoke(
    _options: vscode.LanguageModelToolInvocationOptions<Record<string, never>>,
    token: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResult> {
    const abort = new AbortController();
    const sub = token.onCancellationRequested(() => abort.abort(new Error('cancelled by the agent')));
    try {
      const connection = await this.parts.targets.connect('configured', abort.signal);
      const boards = await connection.client.listLeaderboards({ signal: abort.signal });
      return text({
        service: connection.label,
        leaderboards: boards.map((b) => ({
          name: b.name,
          gpus: b.gpu_types,
          deadline: b.deadline,
          description: (b.description ?? '').slice(0, 300),
        })),
      });
    } catch (err) {
      throw new Error(`could not list the leaderboards of ${this.parts.targets.describe()}: ${errorMessage(err)}`, {
        cause: err,
      });
    } finally {
      sub.dispose();
    }
  }
}

/** The tool objects by name (the test API reaches prepareInvocation through them). */
export function makeTools(parts: ToolParts): {
  submit: SubmitTool;
  digest: DigestTool;
  compare: CompareTool;
  leaderboards: LeaderboardsTool;
} {
  return {
    submit: new SubmitTool(parts),
    digest: new DigestTool(parts),
    compare: new CompareTool(parts),
    leaderboards: new LeaderboardsTool(parts),
  };
}

export function registerTools(tools: ReturnType<typeof makeTools>): vscode.Disposable[] {
  return [
    vscode.lm.registerTool(TOOL_NAMES.submit, tools.submit),
    vscode.lm.registerTool(TOOL_NAMES.digest, tools.digest),
    vscode.lm.registerTool(TOOL_NAMES.compare, tools.compare),
    vscode.lm.registerTool(TOOL_NAMES.leaderboards, tools.leaderboards),
  ];
}
