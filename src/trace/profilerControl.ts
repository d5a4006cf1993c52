// roctxProfilerPause / roctxProfilerResume: profiler control calls in the marker trace, not ranges. Listed with
// their counts; a pause up to the next resume is a paused window, and the kernels that started on the GPU inside
// one are named (the profiler was asked not to collect then, so their figures may be partial or missing).

const CONTROL = /^roctxProfiler(Pause|Resume)$/;

export function isProfilerControl(name: string): boolean {
  return CONTROL.test(name);
}

interface Window {
  start: number;
  /** Infinity: never resumed. */
  end: number;
  kernels: Map<string, { calls: number; totalNs: number }>;
}

export class ProfilerControlLog {
  readonly calls = new Map<string, number>();
  /** (time, pause?) in the order read. */
  private readonly events: Array<{ at: number; pause: boolean }> = [];
  private windowList: Window[] | null = null;
  private readonly merged: Window[] = [];

  /** A control call (`name` as isProfilerControl) at `at`. */
  note(name: string, at: number): void {
    this.calls.set(name, (this.calls.get(name) ?? 0) + 1);
    if (Number.isFinite(at)) this.events.push({ at, pause: name === 'roctxProfilerPause' });
    this.windowList = null;
  }

  get pauses(): number {
    return this.calls.get('roctxProfilerPause') ?? 0;
  }

  /** Pause to the next resume, in time order (a second pause while paused, or a resume while running, changes nothing). */
  windows(): Window[] {
    if (this.windowList) return this.windowList;
    const sorted = [...this.events].sort((a, b) => a.at - b.at);
    const out: Window[] = [];
    let open: Window | null = null;
    for (const e of sorted) {
      if (e.pause && !open) {
        open = { start: e.at, end: Infinity, kernels: new Map() };
        out.push(open);
      } else if (!e.pause && open) {
        open.end = e.at;
        open = null;
      }
    }
    this.windowList = out;
    return out;
  }

  /** A dispatch that started on the GPU at `start`: counted in the paused window it started in, if any. */
  addDispatch(kernel: string, start: number, durationNs: number): void {
    const w = this.windows();
    let lo = 0;
    let hi = w.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((w[mid] as Window).start <= start) lo = mid + 1;
      else hi = mid;
    }
    const at = w[lo - 1];
    if (!at || !(start < at.end)) return;
    const k = at.kernels.get(kernel);
    if (k) {
      k.calls++;
      k.totalNs += durationNs;
    } else {
      at.kernels.set(kernel, { calls: 1, totalNs: durationNs });
    }
  }

  /** The summary's tables take each run's windows as they are, with their kernels (each run has its own). */
  mergeInto(target: ProfilerControlLog): void {
    for (const [name, n] of this.calls) target.calls.set(name, (target.calls.get(name) ?? 0) + n);
    target.merged.push(...this.allWindows());
  }

  /** This log's windows and those of the runs merged into it. */
  allWindows(): Window[] {
    return [...this.merged, ...this.windows()];
  }
}
