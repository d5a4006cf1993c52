// Where a file runs: the embedded runner (no configuration), a self-hosted `kernel-runner serve`, or GPU MODE's
// public service. Resolves the base URL and identity (token from SecretStorage per server, else the popcorn-cli
// `cli_id` from ~/.popcorn.yaml) and connects through core's `connect` (which service a URL is).
import * as vscode from 'vscode';
import { gpuModeBaseUrl, isGpuModeUrl } from '../core/gpumode/target';
import { defaultPopcornConfigPath, readPopcornConfig } from '../core/popcornConfig';
import { findLocalRunnerToken } from '../core/runnerToken';
import type { Ctx } from './ctx';
import { EmbeddedRunner } from './embeddedRunner';
import type { RunOutput } from './runs/output';
import { askText, hooks, notify, pickOne } from './ui';
import { createRunnerClient, type RunnerClient } from '../core/client';
import { connect, type Connection } from '../core/submission/index';
import { errorMessage } from '../core/errors';

export type TargetKind = 'embedded' | 'server' | 'gpumode';

/** Where a run goes: the configured target, or GPU MODE's service for one run ("Profile on GPU MODE"). */
export type TargetChoice = 'configured' | 'gpumode';

const USER_AGENT = 'kernel-runner-vscode';

export interface ResolvedTarget {
  kind: TargetKind;
  baseUrl: string;
  label: string;
  token?: string;
  cliId?: string;
}

const SECRET_PREFIX = 'kernelRunner.token:';

export {};

export class Targets implements vscode.Disposable {
  private embedded: EmbeddedRunner | undefined;
  /** popcorn-cli's config (`cli_id`), ~/.popcorn.yaml; a test points it at a temporary file. */
  get popcornConfigPath(): string {
    return hooks.popcornConfigPath ?? defaultPopcornConfigPath();
  }

  constructor(
    private readonly ctx: Ctx,
    private readonly output: RunOutput,
  ) {}

  get kind(): TargetKind {
    const server = this.ctx.config.server;
    if (!server) return 'embedded';
    return isGpuModeUrl(server) ? 'gpumode' : 'server';
  }

  /** Short text for the status bar. */
  describe(): string {
    const server = this.ctx.config.server;
    if (!server) return 'embedded runner';
    if (this.kind === 'gpumode') return 'GPU MODE';
    try {
      return new URL(server).host;
    } catch {
      return server;
    }
  }

  /** GPU MODE's base URL: the configured server when it is GPU MODE, else POPCORN_API_URL or popcorn-cli's default. */
  gpuModeUrl(): string {
    return this.kind === 'gpumode' ? this.ctx.config.server : gpuModeBaseUrl();
  }

  /** The embedded runner's URL if it is running (test API). */
  async embeddedUrl(): Promise<string | undefined> {
    return this.embedded?.started ? this.embedded.url() : undefined;
  }

  /** The embedded runner's token if it is running (test API: tests call it directly). */
  async embeddedToken(): Promise<string | undefined> {
    return this.embedded?.started ? (await this.embedded.endpoint()).token : undefined;
  }

  async resolve(): Promise<ResolvedTarget> {
    const server = this.ctx.config.server;
    if (!server) {
      if (!this.embedded) {
        this.embedded = new EmbeddedRunner(
          this.ctx.extensionUri,
          this.ctx.extCtx.globalStorageUri,
          this.ctx.config,
          (line) => this.output.note(line),
        );
        const runner = this.embedded;
        this.ctx.pushTargetScoped({
          dispose: () => {
            if (this.embedded === runner) this.embedded = undefined;
            return runner.dispose();
          },
        });
      }
      const { url, token } = await this.embedded.endpoint();
      return { kind: 'embedded', baseUrl: url, label: 'embedded runner', token };
    }
    let url: URL;
    try {
      url = new URL(server);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
    } catch {
      throw new Error(`kernelRunner.server is not an http(s) URL: "${server}". Clear it to use the embedded runner.`);
    }
    return { kind: this.kind, baseUrl: server, label: this.describe(), ...(await this.identity(server)) };
  }

  /**
   * A connection to the configured target (core's `connect`: GPU MODE by URL or by its /health answer), or to GPU
   * MODE's service without touching kernelRunner.server. Errors (a bad URL, an unreachable server, a malformed
   * ~/.popcorn.yaml) are thrown for the workflow's `explain`.
   */
  async connect(where: TargetChoice = 'configured', signal?: AbortSignal): Promise<Connection> {
    if (where === 'gpumode') return this.connectUrl(this.gpuModeUrl(), signal);
    const target = await this.resolve();
    if (target.kind === 'embedded')
      return connect({
        baseUrl: target.baseUrl,
        embedded: {},
        ...(target.token ? { token: target.token } : {}),
        userAgent: USER_AGENT,
      });
    return this.connectWith(target.baseUrl, target, signal);
  }

  /** A connection to a server by URL with its credentials (a submission picked up again after a reload). */
  async connectUrl(baseUrl: string, signal?: AbortSignal): Promise<Connection> {
    return this.connectWith(baseUrl, await this.identity(baseUrl), signal);
  }

  private connectWith(
    baseUrl: string,
    { token, cliId, localToken }: { token?: string; cliId?: string; localToken?: boolean },
    signal?: AbortSignal,
  ): Promise<Connection> {
    // A token stored for GPU MODE's URL is its cli_id (as `submit --token` takes it); our runner gets it as its token.
    // The token found in serve's state folder goes to our runner only.
    const id = cliId ?? (localToken ? undefined : token);
    return connect({
      baseUrl,
      ...(token ? { token } : {}),
      ...(id ? { cliId: id } : {}),
      popcornConfigPath: this.popcornConfigPath,
      userAgent: USER_AGENT,
      ...(signal ? { signal } : {}),
    });
  }

  /**
   * The credentials for a server: its token from SecretStorage; else, for a loopback URL, the token `kernel-runner
   * serve` of this user stored in its default state folder (as the CLI finds it); and popcorn-cli's cli_id (GPU MODE
   * gets only the cli_id: core's connect never sends our token there).
   */
  async identity(baseUrl: string): Promise<{ token?: string; cliId?: string; localToken?: boolean }> {
    const token = await this.storedToken(baseUrl);
    if (token) return { token };
    const local = isGpuModeUrl(baseUrl) ? undefined : findLocalRunnerToken(baseUrl);
    const cliId = await readPopcornCliId(this.popcornConfigPath);
    return { ...(local ? { token: local.token, localToken: true } : {}), ...(cliId ? { cliId } : {}) };
  }

  /** The token stored in SecretStorage for a server (Kernel Runner: Set Token), if any. */
  storedToken(baseUrl: string): Promise<string | undefined> {
    return Promise.resolve(this.ctx.extCtx.secrets.get(SECRET_PREFIX + baseUrl.replace(/\/+$/, '')));
  }

  async selectTarget(): Promise<void> {
    type Item = vscode.QuickPickItem & { id: 'embedded' | 'server' | 'gpumode' };
    const current = this.ctx.config.server;
    const items: Item[] = [
      {
        id: 'embedded',
        label: '$(vm) Embedded runner',
        description: 'runs the file on this machine (no configuration)',
        picked: !current,
      },
      {
        id: 'server',
        label: '$(server) Self-hosted runner…',
        description: 'a `kernel-runner serve` URL, e.g. on your MI300 box',
      },
      {
        id: 'gpumode',
        label: '$(globe) GPU MODE…',
        description: "GPU MODE's public service (identity: cli_id in ~/.popcorn.yaml)",
      },
    ];
    const pick = await pickOne(items, {
      title: 'Kernel Runner: Select Target',
      placeHolder: `Now: ${this.describe()}`,
    });
    if (!pick) return;
    const cfg = vscode.workspace.getConfiguration('kernelRunner');
    if (pick.id === 'embedded') {
      await cfg.update('server', '', vscode.ConfigurationTarget.Global);
      return;
    }
    const url = await askText({
      title: pick.id === 'gpumode' ? 'GPU MODE service URL' : 'Runner URL',
      value:
        pick.id === 'gpumode'
          ? this.kind === 'gpumode'
            ? current
            : gpuModeBaseUrl()
          : current && this.kind === 'server'
            ? current
            : 'http://127.0.0.1:8787',
      prompt:
        pick.id === 'gpumode' ? 'The URL popcorn-cli uses (POPCORN_API_URL)' : 'Base URL of `kernel-runner serve`',
      validateInput: (v) => {
        try {
          const u = new URL(v.trim());
          return u.protocol === 'http:' || u.protocol === 'https:' ? undefined : 'Use an http:// or https:// URL';
        } catch {
          return 'Not a URL';
        }
      },
    });
    if (!url) return;
    await cfg.update('server', url.trim().replace(/\/+$/, ''), vscode.ConfigurationTarget.Global);
    if (pick.id === 'server') {
      const set = await notify.info(
        `Kernel Runner now sends files to ${url}. Does it need a token?`,
        'Set Token',
        'No',
      );
      if (set === 'Set Token') await this.setToken();
    }
  }

  async setToken(): Promise<void> {
    const server = this.ctx.config.server;
    if (!server) {
      void notify.info(
        'The embedded runner makes its own token. Select a server first ("Kernel Runner: Select Target…").',
      );
      return;
    }
    const token = await askText({
      title: `Token for ${server}`,
      prompt: 'Stored in the OS keychain (SecretStorage). Leave empty to remove it.',
      password: true,
      ignoreFocusOut: true,
    });
    if (token === undefined) return;
    if (token.trim()) await this.ctx.extCtx.secrets.store(SECRET_PREFIX + server, token.trim());
    else await this.ctx.extCtx.secrets.delete(SECRET_PREFIX + server);
    this.output.note(token.trim() ? `token stored for ${server}` : `token removed for ${server}`);
    void notify.info(token.trim() ? `Token stored for ${server}.` : `Token removed for ${server}.`);
  }

  /** Test API: store a token without the input box. */
  async storeToken(server: string, token: string): Promise<void> {
    await this.ctx.extCtx.secrets.store(SECRET_PREFIX + server.replace(/\/+$/, ''), token);
  }

  dispose(): void {
    // The embedded runner is target-scoped: Ctx disposes it.
  }
}

/** popcorn-cli's identity, shared: `cli_id` in ~/.popcorn.yaml (a malformed file is reported, not fatal). */
async function readPopcornCliId(file: string): Promise<string | undefined> {
  try {
    return (await readPopcornConfig(file)).cliId;
  } catch (err) {
    void notify.warning(`Kernel Runner: ignoring ~/.popcorn.yaml: ${errorMessage(err)}`);
    return undefined;
  }
}

/** A client for a resolved target. GPU MODE's service has no live output or resumable streams: plain upstream there. */
export function clientFor(target: Pick<ResolvedTarget, 'baseUrl' | 'kind' | 'token' | 'cliId'>): RunnerClient {
  return createRunnerClient({
    baseUrl: target.baseUrl,
    ...(target.token ? { token: target.token } : {}),
    ...(target.cliId ? { cliId: target.cliId } : {}),
    extensions: target.kind !== 'gpumode',
    userAgent: USER_AGENT,
  });
}
