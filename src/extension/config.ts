// Typed access to the `kernelRunner.*` settings: one getter per setting, read fresh each time.
import * as vscode from 'vscode';
import type { SubmissionMode } from '../core/protocol/api';

export type OpenResults = 'always' | 'profileOrFailure' | 'never';
export type EmbeddedProfiler = 'auto' | 'rocprofv3' | 'rocprof' | 'none';

/** Settings that change where files run: a change stops the embedded runner (it restarts on next use). */
const TARGET_SETTINGS = ['kernelRunner.server', 'kernelRunner.embedded'] as const;

export class Config {
  static readonly section = 'kernelRunner';

  private get cfg(): vscode.WorkspaceConfiguration {
    return vscode.workspace.getConfiguration(Config.section);
  }

  /** Empty string = the embedded runner. */
  get server(): string {
    return this.cfg.get<string>('server', '').trim().replace(/\/+$/, '');
  }
  get showProfilerNoise(): boolean {
    return this.cfg.get<boolean>('showProfilerNoise', false);
  }
  get profileGpu(): string {
    return this.cfg.get<string>('profileGpu', 'MI300').trim() || 'MI300';
  }
  get runMode(): SubmissionMode {
    const m = this.cfg.get<string>('runMode', 'test');
    return m === 'benchmark' || m === 'leaderboard' || m === 'profile' ? m : 'test';
  }
  get openResults(): OpenResults {
    const v = this.cfg.get<string>('openResults', 'always');
    return v === 'profileOrFailure' || v === 'never' ? v : 'always';
  }
  get mcpServerEnabled(): boolean {
    return this.cfg.get<boolean>('mcpServer.enable', true);
  }
  get codeLensEnabled(): boolean {
    return this.cfg.get<boolean>('codeLens.enable', true);
  }
  get perfettoMaxTraceBytes(): number {
    return Math.max(1, this.cfg.get<number>('perfettoMaxTraceMB', 256)) * 1024 * 1024;
  }
  /** Bound of the Runs view's storage (results and traces of this workspace's runs). */
  get runsMaxStorageBytes(): number {
    return Math.max(1, this.cfg.get<number>('runs.maxStorageMB', 500)) * 1024 * 1024;
  }
  get embeddedProblemsDir(): string {
    return this.cfg.get<string>('embedded.problemsDir', '').trim();
  }
  get embeddedGpuName(): string {
    return this.cfg.get<string>('embedded.gpuName', '').trim();
  }
  /** Folders prepended to the embedded runner's PATH. */
  get embeddedPath(): string[] {
    return this.cfg
      .get<unknown[]>('embedded.path', [])
      .filter((p): p is string => typeof p === 'string' && p.trim() !== '');
  }
  get embeddedProfiler(): EmbeddedProfiler {
    const v = this.cfg.get<string>('embedded.profiler', 'auto');
    return v === 'rocprofv3' || v === 'rocprof' || v === 'none' ? v : 'auto';
  }

  /** `off` | `ask` | `roofline` | `speed-of-light` | a comma-separated list of counter names. */
  get profileCounters(): string {
    return this.cfg.get<string>('profile.counters', 'off').trim() || 'off';
  }
  get profileKernelRegex(): string {
    return this.cfg.get<string>('profile.kernelRegex', '');
  }
  /** A benchmark case index as typed; '' when every case is profiled. */
  get profileCase(): string {
    const v = this.cfg.get<number | string | null>('profile.case', null);
    return v === null || v === undefined ? '' : String(v);
  }
  get profileLaunches(): string {
    return this.cfg.get<string>('profile.launches', '').trim();
  }
  /** `off` | `host_trap` | `stochastic` | `ask`. */
  get profilePcSampling(): string {
    return this.cfg.get<string>('profile.pcSampling', 'off').trim().toLowerCase() || 'off';
  }
  /** The PC-sampling interval as typed; '' for the method's default. */
  get profilePcSamplingInterval(): string {
    const v = this.cfg.get<number | string | null>('profile.pcSamplingInterval', null);
    return v === null || v === undefined ? '' : String(v);
  }

  static affectsTarget(e: vscode.ConfigurationChangeEvent): boolean {
    return TARGET_SETTINGS.some((s) => e.affectsConfiguration(s));
  }
}
