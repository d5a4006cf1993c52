// The "Kernel Runner" output channel (language `kernel-runner-log`, coloured by syntaxes/kernel-runner-log):
// one block per run with a header, the program's lines as they arrive, our own status lines marked with `▸`,
// profiler noise hidden unless `kernelRunner.showProfilerNoise` (kept aside and counted), a closing line. While
// several runs write at once, each line in the channel starts with its run's tag (`[gemm.py · profile]`), so that
// each run's section can be told apart (and filtered with the channel's filter box).
import * as vscode from 'vscode';
import type { Config } from '../config';

/** What one run printed, kept for the result panel and the test API. */
export class RunLog {
  /** Every line written to the channel for this run (header and status lines included). */
  readonly shown: string[] = [];
  /** Program lines only (stdout and stderr, noise excluded), in arrival order. */
  readonly programLines: string[] = [];
  /** Noise lines, kept aside so nothing is destroyed. */
  readonly noiseLines: string[] = [];
  private finished = false;

  constructor(
    private readonly write: (line: string, log: RunLog) => void,
    private readonly showNoise: boolean,
    /** What marks this run's lines while others write too. */
    readonly tag = '',
    private readonly onClose: (log: RunLog) => void = () => {},
  ) {}

  get open(): boolean {
    return !this.finished;
  }

  /** The run is over without a closing line (a reload stopped following it). */
  release(): void {
    if (this.finished) return;
    this.finished = true;
    this.onClose(this);
  }

  get hiddenNoise(): number {
    return this.showNoise ? 0 : this.noiseLines.length;
  }

  private emit(line: string): void {
    this.shown.push(line);
    this.write(line, this);
  }

  /** A line of the program's own output (or, with noise=true, profiler chatter). */
  program(text: string, noise = false): void {
    if (noise) {
      this.noiseLines.push(text);
      if (this.showNoise) this.emit(`· ${text}`);
      return;
    }
    this.programLines.push(text);
    this.emit(text);
  }

  /** Our own status line. */
  info(text: string): void {
    this.emit(`▸ ${text}`);
  }

  error(text: string): void {
    for (const l of text.split('\n')) this.emit(`✘ ${l}`);
  }

  /** Several already-formatted lines (result summaries). */
  block(lines: string[]): void {
    for (const l of lines) this.emit(l);
  }

  end(summary: string): void {
    if (this.finished) return;
    this.finished = true;
    if (this.noiseLines.length && !this.showNoise) {
      this.emit(
        `▸ ${this.noiseLines.length} profiler log line${this.noiseLines.length === 1 ? '' : 's'} hidden (setting kernelRunner.showProfilerNoise shows them)`,
      );
    }
    this.emit(`━━ ${summary}`);
    this.emit('');
    this.onClose(this);
  }
}

export class RunOutput implements vscode.Disposable {
  private readonly channel = vscode.window.createOutputChannel('Kernel Runner', 'kernel-runner-log');
  private pending: string[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly runs: RunLog[] = [];
  /** The channel's last lines as written (test API: what a person reads there). */
  readonly recent: string[] = [];
  /** Logs of runs still writing. */
  private readonly writing = new Set<RunLog>();

  constructor(private readonly config: Config) {}

  begin(header: string, tag = ''): RunLog {
    const log = new RunLog(
      (line, from) => this.append(this.writing.size > 1 && from.tag && line ? `[${from.tag}] ${line}` : line),
      this.config.showProfilerNoise,
      tag,
      (l) => this.writing.delete(l),
    );
    this.writing.add(log);
    this.runs.push(log);
    if (this.runs.length > 20) this.runs.shift();
    log.block([`━━ ${header}`]);
    return log;
  }

  /** A status line outside any run (the embedded runner starting, a token stored). */
  note(text: string): void {
    this.append(`▸ ${text}`);
  }

  get lastRun(): RunLog | undefined {
    return this.runs[this.runs.length - 1];
  }

  show(preserveFocus = true): void {
    this.flush();
    this.channel.show(preserveFocus);
  }

  /** Lines arrive one event at a time; batching keeps the channel's IPC to ~20 appends a second. */
  private append(line: string): void {
    this.pending.push(line);
    this.recent.push(line);
    if (this.recent.length > 500) this.recent.splice(0, this.recent.length - 500);
    this.timer ??= setTimeout(() => this.flush(), 50);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.pending.length) return;
    const text = this.pending.join('\n') + '\n';
    this.pending = [];
    this.channel.append(text);
  }

  dispose(): void {
    this.flush();
    this.channel.dispose();
  }
}
