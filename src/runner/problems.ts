// Leaderboards served by the runner, from a problems folder in the reference-kernels layout: every problem folder
// (a task.yml) up to three levels deep, named as the competition files beside them say (competitions.ts: a folder
// can be several leaderboards, each with its own GPUs and deadline); a folder in no competition is served under its
// folder name. Plus the built-in `script` leaderboard.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { SCRIPT_LEADERBOARD, type Leaderboard } from '../core/protocol/api';
import type { RankingBy } from '../core/scoring';
import { loadCompetitions, parseYaml11 } from './competitions';
import { caseLine } from './pyrepr';
import { KernelRunnerError, errorMessage } from '../core/errors';

export const SUBMISSION_SOURCE = '@SUBMISSION@';
const DEFAULT_TIMEOUT_SEC = 180;

/** One test or benchmark case as task.yml gives it (values may be lists, booleans, strings, numbers). */
export type CaseSpec = Record<string, unknown>;
export type {};

/** How a `lang: cu` task is built (task.yml `config`, as upstream's CudaTaskData). */
export interface CudaBuild {
  /** Files given to nvcc (the others in `files` are headers). */
  sources: string[];
  /** `-I` folders, relative to the run folder unless absolute. */
  includeDirs: string[];
  /** `-DNAME=value`, or `-DNAME` for null. */
  defines: Record<string, string | null>;
  /** Extra nvcc flags (`compile_flags`), each starting with `-`. */
  flags: string[];
}

export interface Problem {
  /** Leaderboard name. */
  name: string;
  dir: string;
  /** `py`: `python3 <main> <mode> <cases>`; `cu`: sources built with nvcc into eval.out, run as `./eval.out <mode> <cases>`. */
  lang: 'py' | 'cu';
  description: string;
  /** `source` is the absolute path of the file to copy, or `@SUBMISSION@`. */
  files: Array<{ name: string; source: string }>;
  main: string;
  config: Record<string, unknown>;
  tests: CaseSpec[];
  benchmarks: CaseSpec[];
  /** The cases as the evaluator reads them, one line each (Python str() of every value, as upstream writes them). */
  testLines: string[];
  benchmarkLines: string[];
  timeouts: { test: number; benchmark: number; ranked: number };
  rankingBy: RankingBy;
  seed: number | null;
  /** Set for `lang: cu`. */
  cuda: CudaBuild | null;
  /** `multi_gpu: true`: the run gets every device of its GPU slot and POPCORN_GPUS. */
  multiGpu: boolean;
  /** The leaderboard's GPUs (competition entry, else task.yml `gpus`); empty: the GPUs this runner has. */
  gpus: string[];
  /** ISO time (UTC) from the competition entry, or null. */
  deadline: string | null;
  /** The competition file that names this leaderboard, or null for a folder in none. */
  competition: string | null;
}

export interface ProblemSet {
  problems: Map<string, Problem>;
  /** Folders and entries skipped, with why. */
  warnings: string[];
}

class ProblemError extends KernelRunnerError {
  override readonly name = 'ProblemError';
  readonly code = 'RUNNER_PROBLEM';
  readonly type = 'problem' as const;
}

function record(value: unknown, what: string): Record<string, unknown> {
  if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  throw new ProblemError(`${what} must be a mapping`);
}

/** A task file's value as plain JSON (it was read with integers as bigint, to tell `3` from `3.0`). */
function plain(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(plain);
  if (value instanceof Date) return value.toISOString();
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}

function caseList(value: unknown, what: string): { specs: CaseSpec[]; lines: string[] } {
  if (value === undefined || value === null) return { specs: [], lines: [] };
  if (!Array.isArray(value)) throw new ProblemError(`${what} must be a list`);
  const specs: CaseSpec[] = [];
  const lines: string[] = [];
  value.forEach((item, i) => {
    const spec = record(item, `${what}[${i}]`);
    specs.push(plain(spec) as CaseSpec);
    lines.push(caseLine(spec, { numbersAreFloats: true }));
  });
  return { specs, lines };
}

function seconds(value: unknown, what: string): number {
  if (value === undefined || value === null) return DEFAULT_TIMEOUT_SEC;
  if (typeof value !== 'number' || !(value > 0)) throw new ProblemError(`${what} must be a positive number of seconds`);
  return value;
}

function stringList(value: unknown, what: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string'))
    throw new ProblemError(`${what} must be a list of strings`);
  return value as string[];
}

function cudaBuild(config: Record<string, unknown>, fileNames: string[]): CudaBuild {
  const sources = stringList(config.sources, 'config.sources');
  if (sources.length === 0)
    throw new ProblemError('lang: cu needs config.sources, the files nvcc compiles (e.g. [eval.cu, submission.cu])');
  for (const src of sources)
    if (!fileNames.includes(src)) throw new ProblemError(`config.sources lists ${src}, which is not in files`);
  const defines: Record<string, string | null> = {};
  const rawDefines =
    config.defines === undefined || config.defines === null ? {} : record(config.defines, 'config.defines');
  for (const [name, value] of Object.entries(rawDefines)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw new ProblemError(`config.defines: ${name} is not a valid macro name`);
    if (value !== null && typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw new ProblemError(`config.defines.${name} must be a string, a number or null`);
    }
    defines[name] = value === null ? null : String(value);
  }
  const flags = stringList(config.compile_flags, 'config.compile_flags');
  for (const f of flags)
    if (!f.startsWith('-')) throw new ProblemError(`config.compile_flags: ${f} should start with a dash`);
  return { sources, includeDirs: stringList(config.include_dirs, 'config.include_dirs'), defines, flags };
}

/** Reads one task.yml (named after its folder, in no competition); throws ProblemError naming the file and the field. */
export function loadProblem(taskPath: string): Problem {
  const dir = dirname(taskPath);
  const name = basename(dir);
  let doc: Record<string, unknown>;
  let exact: Record<string, unknown>;
  try {
    const text = readFileSync(taskPath, 'utf8');
    doc = record(parseYaml11(text), 'task.yml');
    // the cases once more with integers kept apart from floats, for their Python spelling (3 vs 3.0)
    exact = record(parseYaml11(text, { intAsBigInt: true }), 'task.yml');
  } catch (err) {
    throw new ProblemError(`${taskPath}: ${errorMessage(err)}`);
  }
  try {
    const lang = typeof doc.lang === 'string' ? doc.lang : 'py';
    if (lang !== 'py' && lang !== 'cu') {
      throw new ProblemError(
        `lang '${lang}' is not run by kernel-runner serve (it runs lang: py, and lang: cu built with nvcc)`,
      );
    }
    const rawFiles = doc.files;
    if (!Array.isArray(rawFiles) || rawFiles.length === 0)
      throw new ProblemError('files must be a non-empty list of {name, source}');
    const files = rawFiles.map((f, i) => {
      const entry = record(f, `files[${i}]`);
      if (typeof entry.name !== 'string' || typeof entry.source !== 'string')
        throw new ProblemError(`files[${i}] needs name and source`);
      if (entry.name.includes('..') || entry.name.startsWith('/'))
        throw new ProblemError(`files[${i}].name must stay inside the run folder`);
      if (entry.source === SUBMISSION_SOURCE) return { name: entry.name, source: SUBMISSION_SOURCE };
      const source = resolve(dir, entry.source);
      if (!existsSync(source)) throw new ProblemError(`files[${i}].source ${entry.source} does not exist`);
      return { name: entry.name, source };
    });
    if (!files.some((f) => f.source === SUBMISSION_SOURCE))
      throw new ProblemError(`files has no ${SUBMISSION_SOURCE} entry`);
    const config = doc.config === undefined || doc.config === null ? {} : record(doc.config, 'config');
    const main = typeof config.main === 'string' ? config.main : 'eval.py';
    const cuda =
      lang === 'cu'
        ? cudaBuild(
            config,
            files.map((f) => f.name),
          )
        : null;
    const rankingBy = doc.ranking_by ?? 'last';
    if (rankingBy !== 'last' && rankingBy !== 'mean' && rankingBy !== 'geom')
      throw new ProblemError('ranking_by must be last, mean or geom');
    const tests = caseList(exact.tests, 'tests');
    const benchmarks = caseList(exact.benchmarks, 'benchmarks');
    const multiGpu = doc.multi_gpu === true;
    if (multiGpu) {
      // kernelbot's make_task_definition refuses these too
      for (const [what, list] of [
        ['test', tests.specs],
        ['benchmark', benchmarks.specs],
      ] as const) {
        const bad = list.find((spec) => !('world_size' in spec));
        if (bad) throw new ProblemError(`multi-gpu ${what} ${JSON.stringify(bad)} does not specify world_size`);
      }
    }
    const gpus = doc.gpus === undefined || doc.gpus === null ? [] : doc.gpus;
    if (!Array.isArray(gpus) || !gpus.every((g) => typeof g === 'string'))
      throw new ProblemError('gpus must be a list of GPU names');
    return {
      name,
      dir,
      lang,
      description: typeof doc.description === 'string' ? doc.description.trim() : '',
      files,
      main,
      config,
      tests: tests.specs,
      benchmarks: benchmarks.specs,
      testLines: tests.lines,
      benchmarkLines: benchmarks.lines,
      timeouts: {
        test: seconds(doc.test_timeout, 'test_timeout'),
        benchmark: seconds(doc.benchmark_timeout, 'benchmark_timeout'),
        ranked: seconds(doc.ranked_timeout, 'ranked_timeout'),
      },
      rankingBy,
      seed: typeof doc.seed === 'number' ? doc.seed : null,
      cuda,
      multiGpu,
      gpus: gpus as string[],
      deadline: null,
      competition: null,
    };
  } catch (err) {
    if (err instanceof ProblemError) throw new ProblemError(`${taskPath}: ${err.message}`);
    throw err;
  }
}

function findTaskFiles(dir: string, depth: number, out: string[]): void {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return;
  }
  if (names.includes('task.yml')) {
    out.push(join(dir, 'task.yml'));
    return;
  }
  if (depth === 0) return;
  for (const name of names) {
    if (name.startsWith('.') || name === 'node_modules') continue;
    const p = join(dir, name);
    try {
      if (statSync(p).isDirectory()) findTaskFiles(p, depth - 1, out);
    } catch {
      // vanished or unreadable: skip
    }
  }
}

/**
 * Every task.yml up to three folders deep, served under the names the competition files give it (all of them), or
 * under its folder name when no competition lists it. The first of two leaderboards with one name wins.
 */
export function loadProblems(problemsDir: string): ProblemSet {
  const problems = new Map<string, Problem>();
  const warnings: string[] = [];
  if (!existsSync(problemsDir)) {
    warnings.push(
      `problems folder ${problemsDir} does not exist: only the '${SCRIPT_LEADERBOARD}' leaderboard is served`,
    );
    return { problems, warnings };
  }
  const tasks: string[] = [];
  findTaskFiles(problemsDir, 3, tasks);
  const byDir = new Map<string, Problem>();
  for (const taskPath of tasks) {
    try {
      const problem = loadProblem(taskPath);
      byDir.set(problem.dir, problem);
    } catch (err) {
      warnings.push(errorMessage(err));
    }
  }
  const add = (problem: Problem, where: string) => {
    const taken = [...problems.keys()].find((k) => k.toLowerCase() === problem.name.toLowerCase());
    if (problem.name.toLowerCase() === SCRIPT_LEADERBOARD)
      warnings.push(`${where}: '${SCRIPT_LEADERBOARD}' is reserved for the built-in leaderboard`);
    else if (taken !== undefined)
      warnings.push(`${where}: a leaderboard named '${taken}' was already loaded from ${problems.get(taken)?.dir}`);
    else problems.set(problem.name, problem);
  };
  const competitions = loadCompetitions(problemsDir);
  warnings.push(...competitions.warnings);
  const listed = new Set<string>();
  for (const entry of competitions.entries) {
    const where = `${join(problemsDir, entry.file)}: ${entry.name}`;
    const task = byDir.get(entry.dir);
    if (!task) {
      // a folder whose task.yml was refused already has its warning
      if (!existsSync(join(entry.dir, 'task.yml'))) warnings.push(`${where}: directory ${entry.dir} has no task.yml`);
      continue;
    }
    listed.add(entry.dir);
    add(
      {
        ...task,
        name: entry.name,
        gpus: entry.gpus.length ? entry.gpus : task.gpus,
        deadline: entry.deadline,
        competition: entry.file,
      },
      where,
    );
  }
  for (const task of byDir.values()) if (!listed.has(task.dir)) add(task, join(task.dir, 'task.yml'));
  return { problems, warnings };
}

/** The cases file: one case a line (`k: v; k: v`), each line ending in a newline, as upstream writes it. */
export function casesFileText(cases: ReadonlyArray<Readonly<CaseSpec>>): string {
  return linesFileText(cases.map((c) => caseLine(c)));
}

export function linesFileText(lines: readonly string[]): string {
  return lines.map((l) => `${l}\n`).join('');
}

const scriptDescription =
  'Runs the submitted file as a program: .py with python3, .hip/.cpp built with hipcc, .cu built with nvcc. ' +
  'Output streams live; profile mode runs it under rocprofv3.';

/** The /leaderboards entry of a problem (upstream shape: task.files maps names to contents). */
export function leaderboardEntry(problem: Problem | null, id: number, gpus: string[]): Leaderboard {
  if (!problem) {
    return {
      id,
      name: SCRIPT_LEADERBOARD,
      description: scriptDescription,
      deadline: null,
      gpu_types: gpus,
      task: {
        lang: 'script',
        files: { 'submission.py': SUBMISSION_SOURCE },
        config: {},
        tests: [],
        benchmarks: [],
        test_timeout: DEFAULT_TIMEOUT_SEC,
        benchmark_timeout: DEFAULT_TIMEOUT_SEC,
        ranked_timeout: DEFAULT_TIMEOUT_SEC,
        ranking_by: 'last',
      },
    };
  }
  const files: Record<string, string> = {};
  for (const f of problem.files) {
    if (f.source === SUBMISSION_SOURCE) files[f.name] = SUBMISSION_SOURCE;
    else {
      try {
        files[f.name] = readFileSync(f.source, 'utf8');
      } catch {
        files[f.name] = '';
      }
    }
  }
  return {
    id,
    name: problem.name,
    description: problem.description,
    deadline: problem.deadline,
    gpu_types: gpus,
    task: {
      lang: problem.lang,
      files,
      config: problem.config,
      tests: problem.tests,
      benchmarks: problem.benchmarks,
      test_timeout: problem.timeouts.test,
      benchmark_timeout: problem.timeouts.benchmark,
      ranked_timeout: problem.timeouts.ranked,
      ranking_by: problem.rankingBy,
      seed: problem.seed,
      multi_gpu: problem.multiGpu,
    },
  };
}
