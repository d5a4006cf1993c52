// `kernel-runner register [discord|github] [--reset]`: registers with GPU MODE as popcorn-cli's register /
// reregister do. Prints the provider's sign-in URL (and opens a browser unless --no-browser), waits until the
// service accepts the new cli_id and keeps it in ~/.popcorn.yaml (shared with popcorn-cli; other keys kept). An id
// saved there already stays until the new one is accepted; without one, the new id is saved at once.
import type { Command } from 'commander';
import { sleep } from '../../core/client/backoff';
import {
  checkRegistration,
  completeRegistration,
  isOAuthProvider,
  notLinkedMessage,
  savedCliId,
  startRegistration,
} from '../../core/gpumode/registration';
import { defaultPopcornConfigPath } from '../../core/popcornConfig';
import { CliExit } from '../exit';
import { exitFor, serverUrl } from '../gpumode/connect';
import { openBrowser } from '../gpumode/openBrowser';
import { errorMessage } from '../../core/errors';
import { examplesHelp } from '../helpExamples';

export interface RegisterCliOptions {
  reset?: boolean;
  browser?: boolean;
  wait?: boolean;
  timeout?: string;
  server?: string;
}

export interface CommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

const WAIT_POLL_MS = 1500;

export async function runRegister(
  providerArg: string | undefined,
  opts: RegisterCliOptions,
  io: CommandIo,
  signal?: AbortSignal,
): Promise<number> {
  const provider = (providerArg ?? 'discord').toLowerCase();
  if (!isOAuthProvider(provider)) throw new CliExit(`register takes discord or github, not "${providerArg}"`, 2);
  const timeoutS = Number(opts.timeout ?? 300);
  if (!Number.isFinite(timeoutS) || timeoutS < 0)
    throw new CliExit(`--timeout takes seconds, not "${opts.timeout}"`, 2);
  const baseUrl = serverUrl(opts.server);
  const reset = Boolean(opts.reset);

  const configPath = defaultPopcornConfigPath();
  // A cli_id saved already stays until the new one is confirmed (see savedCliId).
  const previous = await savedCliId(configPath).catch(exitFor);
  const started = await startRegistration({ baseUrl, provider, reset, signal }).catch(exitFor);
  const who = provider === 'discord' ? 'Discord' : 'GitHub';
  io.stdout.write(
    `${reset ? 'Re-registering' : 'Registering'} with GPU MODE (${baseUrl}) via ${who}.\n\nOpen this URL to sign in:\n\n  ${started.authorizeUrl}\n\n`,
  );
  if (opts.browser !== false) {
    const opened = await openBrowser(started.authorizeUrl);
    if (!opened) io.stdout.write('(No browser could be opened here: copy the URL into one.)\n');
  }
  if (!previous) {
    await completeRegistration(started.cliId, { configPath }).catch(exitFor);
    io.stdout.write(`Saved the new cli_id to ${configPath} (popcorn-cli reads it too).\n`);
  } else {
    io.stdout.write(`The cli_id in ${configPath} stays until GPU MODE accepts the new one.\n`);
  }
  if (opts.wait === false) {
    if (previous) {
      io.stdout.write(
        `--no-wait cannot confirm the new cli_id, so it is not saved: your current one stays in ${configPath}. Register without --no-wait to switch.\n`,
      );
      return 0;
    }
    io.stdout.write('It works once you finish signing in; `kernel-runner submissions list` checks.\n');
    return 0;
  }

  io.stderr.write(
    `Waiting for the sign-in to finish (Ctrl-C stops waiting; ${previous ? 'your current cli_id stays' : 'the id stays saved'})...\n`,
  );
  const stopped = previous
    ? `stopped waiting; the new cli_id was not saved and your current one stays in ${configPath}`
    : 'stopped waiting; finish signing in, then `kernel-runner submissions list` checks';
  const deadline = Date.now() + timeoutS * 1000;
  for (;;) {
    const status = await checkRegistration({ baseUrl, cliId: started.cliId, configPath, signal }).catch(
      (err: unknown) => {
        if (signal?.aborted) throw new CliExit(stopped, 130);
        // A blip while waiting is not fatal: say so and keep waiting.
        io.stderr.write(`kernel-runner: ${errorMessage(err)}; still waiting\n`);
        return undefined;
      },
    );
    if (status?.state === 'ok') {
      if (previous) {
        await completeRegistration(started.cliId, { configPath }).catch(exitFor);
        io.stdout.write(`Saved the new cli_id to ${configPath} (popcorn-cli reads it too).\n`);
      }
      io.stdout.write(
        `Registered: GPU MODE accepts this cli_id${reset ? ' (the previous one no longer works)' : ''}.\n`,
      );
      return 0;
    }
    if (Date.now() + WAIT_POLL_MS > deadline) {
      throw new CliExit(
        notLinkedMessage({ reset, provider, waitedS: timeoutS, ...(previous ? { kept: configPath } : {}) }),
        1,
      );
    }
    try {
      await sleep(WAIT_POLL_MS, signal);
    } catch {
      throw new CliExit(stopped, 130);
    }
  }
}

export function register(program: Command): void {
  program
    .command('register')
    .description(
      "register with GPU MODE's service (as popcorn-cli does): sign in with Discord or GitHub; the cli_id goes to ~/.popcorn.yaml",
    )
    .argument('[provider]', 'discord | github', 'discord')
    .option('--reset', 'link a new cli_id to an account that is already registered (popcorn-cli reregister)')
    .option('--no-browser', 'only print the sign-in URL')
    .option('--no-wait', 'do not wait for the sign-in to finish')
    .option('--timeout <seconds>', 'how long to wait for the sign-in', '300')
    .option('--server <url>', "GPU MODE's base URL (default: $POPCORN_API_URL, else popcorn-cli's default)")
    .addHelpText(
      'after',
      examplesHelp([
        'kernel-runner register discord',
        'kernel-runner register github --no-browser',
        'kernel-runner register discord --reset            # a new cli_id for a registered account',
      ]),
    )
    .action(async (provider: string | undefined, opts: RegisterCliOptions) => {
      const controller = new AbortController();
      const onSigint = () => controller.abort(new Error('interrupted'));
      process.once('SIGINT', onSigint);
      try {
        const code = await runRegister(
          provider,
          opts,
          { stdout: process.stdout, stderr: process.stderr },
          controller.signal,
        );
        if (code !== 0) process.exitCode = code;
      } finally {
        process.off('SIGINT', onSigint);
      }
    });
}
