// The extension's embedded runner (src/runner/embedded.ts: loopback, ephemeral port, a fresh token only this
// extension host knows), started on first use and stopped when the target changes or the extension deactivates.
import * as vscode from 'vscode';
import { delimiter } from 'node:path';
import { startEmbeddedRunner } from '../runner/embedded';
import type { Config } from './config';

export class EmbeddedRunner implements vscode.Disposable {
  private starting: Promise<{ url: string; token: string; close(): Promise<void> }> | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly storageUri: vscode.Uri,
    private readonly config: Config,
    private readonly onStarted: (line: string) => void = () => {},
  ) {}

  /** Starts the runner once; later calls get the same URL. */
  url(): Promise<string> {
    return this.endpoint().then((r) => r.url);
  }

  /** Starts the runner once; its URL and the token its clients send. */
  endpoint(): Promise<{ url: string; token: string }> {
    this.starting ??= this.start();
    return this.starting.then((r) => ({ url: r.url, token: r.token }));
  }

  get started(): boolean {
    return this.starting !== undefined;
  }

  private async start(): Promise<{ url: string; token: string; close(): Promise<void> }> {
    const problemsDir = this.config.embeddedProblemsDir || vscode.Uri.joinPath(this.extensionUri, 'examples/problems').fsPath;
    const dataDir = vscode.Uri.joinPath(this.storageUri, 'embedded-runner').fsPath;
    await vscode.workspace.fs.createDirectory(vscode.Uri.file(dataDir));
    try {
      const runner = await startEmbeddedRunner({
        problemsDir,
        dataDir,
        ...(this.config.embeddedGpuName ? { gpuName: this.config.embeddedGpuName } : {}),
        profiler: this.config.embeddedProfiler,
        env: this.environment(),
      });
      const { gpus, profiler, problems, warnings } = runner.info;
      this.onStarted(
        `embedded runner started at ${runner.url}: GPUs ${gpus.join(', ') || 'none'}; profiler ${profiler ? `${profiler.kind} (${profiler.path})` : 'none'}; leaderboards ${problems.join(', ')}` +
          (warnings.length ? `; warnings: ${warnings.join('; ')}` : ''),
      );
      return { url: runner.url, token: runner.token, close: () => runner.close() };
    } catch (err) {
      this.starting = undefined;
      throw new Error(`The embedded runner did not start: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }

  /** The extension host's environment with kernelRunner.embedded.path first on PATH. */
  private environment(): NodeJS.ProcessEnv {
    const extra = this.config.embeddedPath;
    if (!extra.length) return process.env;
    return { ...process.env, PATH: [...extra, process.env.PATH ?? ''].filter(Boolean).join(delimiter) };
  }

  async dispose(): Promise<void> {
    const s = this.starting;
    this.starting = undefined;
    if (s) await s.then((r) => r.close()).catch(() => undefined);
  }
}
