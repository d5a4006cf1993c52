// Small helpers shared by the benchmarks: medians, the machine's load (the figures of a shared 2-core machine
// mean little without it), child processes timed with their CPU seconds, and the closing one-line summary.
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

/** `load 1.23 (1 min), 2 cores` */
export function machineLoad(): string {
  const [one] = loadavg();
  return `load ${(one ?? 0).toFixed(2)} (1 min avg)`;
}

/** CPU seconds (user + system) this process used since `since` (from process.cpuUsage()). */
export function cpuSecondsSince(since: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1e6;
}

/** Parses the children line of the POSIX shell's `times` (`0m1.230000s 0m0.210000s`) into CPU seconds. */
function parseTimes(text: string): number | null {
  const lines = text.trim().split('\n');
  const last = lines[lines.length - 1] ?? '';
  const parts = [...last.matchAll(/(\d+)m([\d.]+)s/g)];
  if (parts.length < 2) return null;
  return parts.slice(0, 2).reduce((sum, m) => sum + Number(m[1]) * 60 + Number(m[2]), 0);
}

/**
 * Runs a shell command (asynchronously: a runner under test may live in this process) with its output discarded;
 * resolves with its exit code, wall seconds and the CPU seconds of its processes (from the shell's `times`).
 */
export function timeShell(
  command: string,
  opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<{ code: number | null; seconds: number; cpuSeconds: number | null }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn('sh', ['-c', `${command} >/dev/null 2>&1; code=$?; times; exit $code`], {
      stdio: ['ignore', 'pipe', 'ignore'],
      env: opts.env ?? process.env,
      cwd: opts.cwd,
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, seconds: (performance.now() - t0) / 1000, cpuSeconds: parseTimes(out) }));
  });
}

/** Shell-quotes one argument. */
export function q(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The closing line every benchmark prints: `RESULT <name>: <what> (target <target>): MET|NOT MET`. */
export function summary(name: string, what: string, target: string, met: boolean): string {
  return `RESULT ${name}: ${what} (target ${target}): ${met ? 'MET' : 'NOT MET'}`;
}
