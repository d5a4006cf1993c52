// The extension's embedded runner (src/runner/embedded.ts: loopback, ephemeral port, a fresh token only this
// extension host knows), started on first use and stopped when the target changes or the extension deactivates.
import * as vscode from 'vscode';
import { startEmbeddedRunner } from '../runner/embedded';
import { embeddedRunnerOptions } from './embeddedRunnerOptions';
import type { Config } from './config';
import { errorMessage } from '../core/errors';

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
    const problemsDir =
      this.config.embeddedProblemsDir || vscode.Uri.joinPath(this.extensionUri, 'examples/problems').fsPath;
    const dataDir = vscode.Uri.joinPath(this.storageUri, 'embedded-runner').fsPath;
    await vscode.workspace.fs.createDirectory(vscode.Uri.file(dataDir));
    try {
      const runner = await startEmbeddedRunner(
        embeddedRunnerOptions({
          problemsDir,
          dataDir,
          gpuName: this.config.embeddedGpuName || undefined,
          profiler: this.config.embeddedProfiler,
          extraPath: this.config.embeddedPath,
          env: process.env,
        }),
      );
      const { gpus, profiler, problems, warnings } = runner.info;
      this.onStarted(
        `embedded runner started at ${runner.url}: GPUs ${gpus.join(', ') || 'none'}; profiler ${profiler ? `${profiler.kind} (${profiler.path})` : 'none'}; leaderboards ${problems.join(', ')}` +
          (warnings.length ? `; warnings: ${warnings.join('; ')}` : ''),
      );
      return { url: runner.url, token: runner.token, close: () => runner.close() };
    } catch (err) {
      this.starting = undefined;
      throw new Error(`The embedded runner did not start: ${errorMessage(err)}`, { cause: err });
    }
  }

  async dispose(): Promise<void> {
    const s = this.starting;
    this.starting = undefined;
    if (s) await s.then((r) => r.close()).catch(() => undefined);
  }
}
