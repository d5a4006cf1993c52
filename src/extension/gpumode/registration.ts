// "Register with GPU MODE (Discord|GitHub)" and "Re-register": popcorn-cli's `register` / `reregister` from the
// editor. A new cli_id from the service, saved to ~/.popcorn.yaml (shared with popcorn-cli, other keys kept), the
// provider's OAuth page opened in the browser, then a cancellable wait until the service accepts the id.
import * as vscode from 'vscode';
import { sleep } from '../../core/client/backoff';
import { EXTENSION_REGISTER_HINTS, isGpuModeError } from '../../core/gpumode/errors';
import {
  checkRegistration,
  completeRegistration,
  notLinkedMessage,
  savedCliId,
  startRegistration,
  type OAuthProvider,
} from '../../core/gpumode/registration';
import { readPopcornConfig } from '../../core/popcornConfig';
import type { RunOutput } from '../runs/output';
import type { Targets } from '../targets';
import { hooks, notify, openExternal, pickOne } from '../ui';
import { errorMessage } from '../../core/errors';
import { pollIntervalFromEnv } from '../../core/submission/policy';

const PROVIDER_LABEL: Record<OAuthProvider, string> = { discord: 'Discord', github: 'GitHub' };

export interface RegistrationOutcome {
  state: 'registered' | 'pending';
  provider: OAuthProvider;
  reset: boolean;
  configPath: string;
  authorizeUrl: string;
}

export interface RegisterRequest {
  provider?: OAuthProvider;
  /** Re-register (popcorn-cli `reregister`): a new id for an account that has one. Undefined: ask when an id exists. */
  reset?: boolean;
}

export class GpuModeRegistration {
  /** How long the wait for the OAuth page lasts. */
  waitMs = 10 * 60_000;

  /** How often the wait asks the service whether the OAuth page was finished (KERNEL_RUNNER_POLL_MS may shorten it). */
  get pollMs(): number {
    return hooks.pollIntervalMs ?? Math.min(2000, pollIntervalFromEnv());
  }

  constructor(
    private readonly targets: Targets,
    private readonly output: RunOutput,
  ) {}

  async register(request: RegisterRequest = {}): Promise<RegistrationOutcome | undefined> {
    const provider = request.provider ?? (await this.pickProvider(request.reset === true));
    if (!provider) return undefined;
    const configPath = this.targets.popcornConfigPath;
    const baseUrl = this.targets.gpuModeUrl();
    let reset = request.reset;
    if (reset === undefined) {
      let existing: string | undefined;
      try {
        existing = (await readPopcornConfig(configPath)).cliId;
      } catch (err) {
        void notify.error(`Kernel Runner: cannot register: ${messageOf(err)}`);
        return undefined;
      }
      reset = false;
      if (existing) {
        const answer = await notify.confirm(
          `A GPU MODE cli_id is already saved in ${configPath} (shared with popcorn-cli). Re-register it with your ${PROVIDER_LABEL[provider]} account, or register a new account?`,
          'Re-register',
          'Register New Account',
        );
        if (!answer) return undefined;
        reset = answer === 'Re-register';
      }
    }

    let started: Awaited<ReturnType<typeof startRegistration>>;
    // A cli_id saved already stays until GPU MODE accepts the new one (its callback may refuse it).
    let previous: string | undefined;
    try {
      previous = await savedCliId(configPath);
      started = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Kernel Runner: asking GPU MODE for a new cli_id` },
        () =>
          startRegistration({
            baseUrl,
            provider,
            reset: reset === true,
            hints: EXTENSION_REGISTER_HINTS,
            timeoutMs: 20_000,
          }),
      );
      if (!previous) await completeRegistration(started.cliId, { configPath });
    } catch (err) {
      const text = messageOf(err);
      this.output.note(`registration failed: ${text}`);
      void notify.error(`Kernel Runner: could not register with GPU MODE: ${text}`);
      return undefined;
    }
    this.output.note(
      previous
        ? `GPU MODE: the cli_id in ${configPath} stays until GPU MODE accepts the new one; opening ${PROVIDER_LABEL[provider]} to link it`
        : `GPU MODE: new cli_id saved to ${configPath}; opening ${PROVIDER_LABEL[provider]} to link it`,
    );
    const opened = await openExternal(started.authorizeUrl).then(
      (ok) => ok,
      () => false,
    );
    if (!opened) {
      const pick = await notify.warning(
        `Kernel Runner: open this page to finish registering: ${started.authorizeUrl}`,
        'Copy Link',
      );
      if (pick === 'Copy Link') await vscode.env.clipboard.writeText(started.authorizeUrl);
    }

    const outcome: RegistrationOutcome = {
      state: 'pending',
      provider,
      reset: reset === true,
      configPath,
      authorizeUrl: started.authorizeUrl,
    };
    const linked = await this.waitForLink(baseUrl, started.cliId, configPath, provider);
    if (linked && previous) {
      try {
        await completeRegistration(started.cliId, { configPath });
      } catch (err) {
        const text = messageOf(err);
        this.output.note(`registration failed: ${text}`);
        void notify.error(`Kernel Runner: GPU MODE accepted the new cli_id, but it could not be saved: ${text}`);
        return outcome;
      }
    }
    if (linked) {
      outcome.state = 'registered';
      this.output.note(`GPU MODE: registered with ${PROVIDER_LABEL[provider]}`);
      const useIt = this.targets.kind === 'gpumode' ? [] : ['Use GPU MODE as Target'];
      void notify
        .info(
          `Kernel Runner: registered with GPU MODE through ${PROVIDER_LABEL[provider]}. The cli_id is in ${configPath} (popcorn-cli uses it too).`,
          ...useIt,
        )
        .then(async (pick) => {
          if (pick)
            await vscode.workspace
              .getConfiguration('kernelRunner')
              .update('server', baseUrl, vscode.ConfigurationTarget.Global);
        });
    } else if (previous) {
      const text = notLinkedMessage({ reset: reset === true, provider, kept: configPath, cli: false });
      this.output.note(text);
      void notify.warning(`Kernel Runner: ${text}`);
    } else {
      void notify.info(
        `Kernel Runner: the cli_id is saved in ${configPath}. Finish the ${PROVIDER_LABEL[provider]} page in your browser; submissions work once GPU MODE has linked it.`,
      );
    }
    return outcome;
  }

  /** Polls the service until the id is accepted (the OAuth page was finished), the user cancels, or time runs out. */
  private waitForLink(baseUrl: string, cliId: string, configPath: string, provider: OAuthProvider): Thenable<boolean> {
    return vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `Kernel Runner: finish signing in with ${PROVIDER_LABEL[provider]} in your browser`,
        cancellable: true,
      },
      async (progress, token) => {
        const abort = new AbortController();
        const sub = token.onCancellationRequested(() => abort.abort());
        const deadline = Date.now() + this.waitMs;
        try {
          while (Date.now() < deadline && !abort.signal.aborted) {
            try {
              const status = await checkRegistration({
                baseUrl,
                cliId,
                configPath,
                signal: abort.signal,
                timeoutMs: 15_000,
                hints: EXTENSION_REGISTER_HINTS,
              });
              if (status.state === 'ok') return true;
              progress.report({ message: 'waiting for GPU MODE to link the new id…' });
            } catch (err) {
              if (abort.signal.aborted) break;
              progress.report({ message: `GPU MODE did not answer (${messageOf(err)}); trying again` });
            }
            await sleep(this.pollMs, abort.signal).catch(() => undefined);
          }
          return false;
        } finally {
          sub.dispose();
        }
      },
    );
  }

  private async pickProvider(reset: boolean): Promise<OAuthProvider | undefined> {
    const items: Array<vscode.QuickPickItem & { provider: OAuthProvider }> = [
      { label: 'Discord', provider: 'discord', description: 'sign in with your Discord account' },
      { label: 'GitHub', provider: 'github', description: 'sign in with your GitHub account' },
    ];
    const pick = await pickOne(items, {
      title: reset ? 'Re-register with GPU MODE' : 'Register with GPU MODE',
      placeHolder: 'Account to link the new cli_id to',
    });
    return pick?.provider;
  }
}

function messageOf(err: unknown): string {
  if (isGpuModeError(err)) return err.message;
  return errorMessage(err);
}
