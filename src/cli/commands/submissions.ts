// `kernel-runner submissions list|show ID [--code]|delete ID`: your submissions on GPU MODE (cli_id from
// ~/.popcorn.yaml) or on a `kernel-runner serve` (--server), as tables or --json.
import type { Command } from 'commander';
import { createInterface } from 'node:readline/promises';
import {
  describeSubmissionStatus,
  noDetailsAdvice,
  rankedScoreOfSubmission,
  runsWithoutDetails,
} from '../../core/gpumode/results';
import { NO_DETAILS_HINTS } from '../../core/submission/explain';
import { runRow, submissionHeadline, submissionRow } from '../../core/gpumode/submissions';
import { formatRunnerQueue } from '../../core/gpumode/leaderboards';
import { CliExit } from '../exit';
import { TOKEN_FILE_HELP } from '../runnerToken';
import { connectServer, exitFor, type ServerOptions } from '../gpumode/connect';
import { renderTable } from '../render/table';
import type { CommandIo } from './register';
import { examplesHelp } from '../helpExamples';

interface CommonOptions extends ServerOptions {
  json?: boolean;
}

function positiveInt(value: string | undefined, what: string, fallback?: number): number | undefined {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new CliExit(`${what} takes a whole number, not "${value}"`, 2);
  return n;
}

function submissionId(value: string): number {
  const n = Number(value.replace(/^#/, ''));
  if (!Number.isInteger(n) || n <= 0) throw new CliExit(`a submission id is a positive number, not "${value}"`, 2);
  return n;
}

export async function runSubmissionsList(
  opts: CommonOptions & { leaderboard?: string; limit?: string; offset?: string },
  io: CommandIo,
): Promise<number> {
  const { client, gpumode } = await connectServer(opts);
  const list = await client
    .listSubmissions({
      leaderboard: opts.leaderboard,
      limit: positiveInt(opts.limit, '--limit', 20),
      offset: positiveInt(opts.offset, '--offset'),
    })
    .catch((e: unknown) => exitFor(e, gpumode));
  if (opts.json) {
    io.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
    return 0;
  }
  if (list.length === 0) {
    io.stdout.write('No submissions found.\n');
    return 0;
  }
  const rows = list
    .map(submissionRow)
    .map((r) => [String(r.id), r.leaderboard, r.file, r.time.replace('T', ' ').slice(0, 19), r.gpu, r.status, r.score]);
  io.stdout.write(
    renderTable(['ID', 'Leaderboard', 'File', 'Submitted', 'GPU', 'Status', 'Score'], rows, new Set([0, 6])),
  );
  return 0;
}

export async function runSubmissionsShow(
  idArg: string,
  opts: CommonOptions & { code?: boolean },
  io: CommandIo,
): Promise<number> {
  const id = submissionId(idArg);
  const { client, gpumode } = await connectServer(opts);
  const detail = await client.getSubmission(id).catch((e: unknown) => exitFor(e, gpumode));
  if (opts.json) {
    io.stdout.write(`${JSON.stringify(opts.code ? detail : { ...detail, code: undefined }, null, 2)}\n`);
    return 0;
  }
  const out: string[] = [submissionHeadline(detail), `Submitted: ${detail.submission_time}`];
  const status = describeSubmissionStatus(detail);
  if (detail.job) {
    out.push(
      `Job: ${status.label}${detail.job.last_heartbeat ? ` (last heartbeat ${detail.job.last_heartbeat})` : ''}`,
    );
    if (detail.job.error) out.push(`  error: ${detail.job.error}`);
  }
  if (status.explanation) out.push(`  ${status.explanation}`);
  const score = rankedScoreOfSubmission(detail);
  if (score && score.notRanked === undefined) out.push(`Ranked score: ${score.text}`);
  else if (score) out.push(`Score: ${score.text}, not ranked: ${score.notRanked}`);
  const bare = runsWithoutDetails(detail);
  if (bare.length) out.push(`  ${noDetailsAdvice(bare, NO_DETAILS_HINTS.cli)}`);
  if (detail.runs.length) {
    out.push('', 'Runs:');
    const rows = detail.runs
      .map(runRow)
      .map((r) => [r.mode, r.runner, r.passed ? 'passed' : 'failed', r.score, r.secret ? 'secret' : '', r.start ?? '']);
    out.push(renderTable(['Mode', 'Runner', 'Result', 'Score', 'Seed', 'Started'], rows, new Set([3])).trimEnd());
  }
  if (detail.runner_queue) out.push('', `Queue: ${formatRunnerQueue(detail.runner_queue)}`);
  if (opts.code)
    out.push('', `Code (${detail.file_name}):`, '-'.repeat(60), detail.code.replace(/\n$/, ''), '-'.repeat(60));
  io.stdout.write(`${out.join('\n')}\n`);
  return 0;
}

export async function runSubmissionsDelete(
  idArg: string,
  opts: CommonOptions & { yes?: boolean },
  io: CommandIo & { stdin?: NodeJS.ReadableStream; interactive?: boolean },
): Promise<number> {
  const id = submissionId(idArg);
  const { client, gpumode } = await connectServer(opts);
  if (!opts.yes) {
    if (!io.interactive || !io.stdin)
      throw new CliExit(`deleting submission ${id} cannot be undone: pass --yes to confirm`, 2);
    const detail = await client.getSubmission(id).catch((e: unknown) => exitFor(e, gpumode));
    const rl = createInterface({ input: io.stdin, output: io.stderr });
    const answer = await rl.question(`Delete ${submissionHeadline(detail)}? [y/N] `);
    rl.close();
    if (!/^y(es)?$/i.test(answer.trim())) {
      io.stdout.write('Cancelled.\n');
      return 0;
    }
  }
  const answer = await client.deleteSubmission(id).catch((e: unknown) => exitFor(e, gpumode));
  io.stdout.write(opts.json ? `${JSON.stringify(answer, null, 2)}\n` : `Deleted submission ${answer.submission_id}.\n`);
  return 0;
}

const std = (): CommandIo => ({ stdout: process.stdout, stderr: process.stderr });

function addServerOptions(cmd: Command): Command {
  return cmd
    .option(
      '--server <url>',
      "GPU MODE's base URL (default: $POPCORN_API_URL, else popcorn-cli's default) or a kernel-runner serve URL",
    )
    .option(
      '--token <token>',
      "a kernel-runner serve token (default: --token-file, $KERNEL_RUNNER_TOKEN, else for a loopback URL the one `serve` stored in ~/.local/state/kernel-runner/token); for GPU MODE, a cli_id instead of ~/.popcorn.yaml's",
    )
    .option('--token-file <path>', TOKEN_FILE_HELP)
    .option('--json', 'print JSON');
}

export function register(program: Command): void {
  const group = program
    .command('submissions')
    .description('your submissions: list, show (with --code), delete')
    .addHelpText(
      'after',
      examplesHelp([
        'kernel-runner submissions list --limit 5',
        'kernel-runner submissions show 4211 --code',
        'kernel-runner submissions delete 4211 --server http://127.0.0.1:8787',
      ]),
    );
  addServerOptions(
    group
      .command('list')
      .description('list your submissions, newest first')
      .option('--leaderboard <name>', 'only this leaderboard')
      .option('--limit <n>', 'how many', '20')
      .option('--offset <n>', 'skip this many')
      .addHelpText(
        'after',
        examplesHelp([
          "kernel-runner submissions list                 # on GPU MODE, with ~/.popcorn.yaml's cli_id",
          'kernel-runner submissions list --leaderboard amd-fp8-mm --json',
          'kernel-runner submissions list --server http://127.0.0.1:8787',
        ]),
      ),
  ).action(async (opts: CommonOptions & { leaderboard?: string; limit?: string; offset?: string }) => {
    process.exitCode = (await runSubmissionsList(opts, std())) || undefined;
  });
  addServerOptions(
    group
      .command('show')
      .description('show one submission: status, runs, score')
      .argument('<id>', 'submission id')
      .option('--code', 'also print the submitted code')
      .addHelpText(
        'after',
        examplesHelp(['kernel-runner submissions show 4211', 'kernel-runner submissions show 4211 --code --json']),
      ),
  ).action(async (id: string, opts: CommonOptions & { code?: boolean }) => {
    process.exitCode = (await runSubmissionsShow(id, opts, std())) || undefined;
  });
  addServerOptions(
    group
      .command('delete')
      .description('delete one submission')
      .argument('<id>', 'submission id')
      .option('-y, --yes', 'do not ask for confirmation')
      .addHelpText(
        'after',
        examplesHelp([
          'kernel-runner submissions delete 4211',
          'kernel-runner submissions delete 4211 --yes --server http://127.0.0.1:8787',
        ]),
      ),
  ).action(async (id: string, opts: CommonOptions & { yes?: boolean }) => {
    process.exitCode =
      (await runSubmissionsDelete(id, opts, {
        ...std(),
        stdin: process.stdin,
        interactive: process.stdin.isTTY === true,
      })) || undefined;
  });
}
