// Small helpers shared by the benchmarks: medians, the machine's load (the figures of a shared 2-core machine
// mean little without it), child processes timed with their CPU seconds, and the closing one-line summary.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

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
    child.on('close', (code) =>
      resolve({ code, seconds: (performance.now() - t0) / 1000, cpuSeconds: parseTimes(out) }),
    );
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

/**
 * A Python program that prints `totalMb` MB of mixed lines: the program's own output on stdout and stderr, and
 * rocprof-style glog and Perfetto noise on stderr (a ~1 MB block, written `totalMb` times).
 */
export function mixedOutputProgram(totalMb: number): string {
  const MB = 1024 * 1024;
  return `
import random, sys
random.seed(11)
out, err, size, i = [], [], 0, 0
while size < ${MB}:
    r = random.random()
    if r < 0.55:
        line = f"step {i}: loss={random.random():.6f} time={random.random()*1000:.2f} us\\n"; out.append(line)
    elif r < 0.7:
        line = f"W20250710 21:33:25.713947 140172743004992 simple_timer.cpp:55] [rocprofv3] tool initialization :: {random.random():.6f} sec\\n"; err.append(line)
    elif r < 0.8:
        line = f"[{random.random()*1000:.3f}]       perfetto.cc:47304 Configured tracing session 1, #sources:1, duration:0 ms\\n"; err.append(line)
    else:
        line = f"note {i}: the program's own stderr " + "y" * int(random.random() * 100) + "\\n"; err.append(line)
    size += len(line); i += 1
o, e = "".join(out).encode(), "".join(err).encode()
for _ in range(${totalMb}):
    sys.stdout.buffer.write(o); sys.stderr.buffer.write(e)
`;
}

/** `kernel-runner serve` of the built CLI `cli` in its own process, loopback, no token, on `dataDir`. */
export async function startServe(
  cli: string,
  dataDir: string,
  extra: string[] = [],
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [cli, 'serve', '--port', '0', '--no-token', '--data-dir', dataDir, '--profiler', 'none', ...extra],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  const url = /listening on (http:\/\/\S+)/.exec(line)?.[1];
  if (!url) throw new Error(`serve did not start: ${line}`);
  return { child, url };
}

/**
 * BENCH_PEER=<another checkout, built>: its dist/cli.cjs, measured beside ours in the same rounds (an A/B against
 * an older build of this repo: `git worktree add /tmp/base <commit>`, link node_modules, `node scripts/build.mjs`).
 */
export function peerCli(env: NodeJS.ProcessEnv = process.env): string | null {
  const dir = env.BENCH_PEER?.trim();
  if (!dir) return null;
  const cli = path.resolve(dir, 'dist/cli.cjs');
  if (!existsSync(cli)) throw new Error(`BENCH_PEER: ${cli} is missing (build that checkout first)`);
  return cli;
}

/** A child run to its end, timed: wall seconds, and with /usr/bin/time -v its CPU seconds and peak RSS. */
export interface TimedRun {
  seconds: number;
  rssMiB: number | null;
  cpuSeconds: number | null;
  stdout: string;
}

/** Runs `node <args>` (under /usr/bin/time -v when it exists); throws unless it exits 0. */
export function timedNode(args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv }): TimedRun {
  const time = '/usr/bin/time';
  const useTime = existsSync(time);
  const t0 = performance.now();
  const r = spawnSync(useTime ? time : process.execPath, useTime ? ['-v', process.execPath, ...args] : args, {
    cwd: opts.cwd,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    env: opts.env ?? process.env,
  });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`${args.slice(0, 3).join(' ')} failed (${r.status}): ${r.stderr}`);
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr);
  const user = /User time \(seconds\): ([\d.]+)/.exec(r.stderr);
  const sys = /System time \(seconds\): ([\d.]+)/.exec(r.stderr);
  return {
    seconds,
    rssMiB: rss ? Number(rss[1]) / 1024 : null,
    cpuSeconds: user && sys ? Number(user[1]) + Number(sys[1]) : null,
    stdout: r.stdout,
  };
}

/** Both peers' runs of a comparison: the first (not counted, printed), then `rounds` rounds, ours first each time. */
export interface PeerRounds {
  first: { ours: TimedRun; duck: TimedRun };
  ours: TimedRun[];
  duck: TimedRun[];
  /** Each round's ours / DuckDB wall time. */
  ratios: number[];
}

/** Runs ours and DuckDB once each (warm-up, not counted), then `rounds` times in turn, printing each round's line. */
export function roundsAgainstDuckDb(rounds: number, ours: () => TimedRun, duck: () => TimedRun): PeerRounds {
  const first = { ours: ours(), duck: duck() };
  console.log(
    `  first runs (not counted): ours ${first.ours.seconds.toFixed(2)} s, DuckDB ${first.duck.seconds.toFixed(2)} s`,
  );
  const res: PeerRounds = { first, ours: [], duck: [], ratios: [] };
  for (let round = 0; round < rounds; round++) {
    const a = ours();
    const b = duck();
    res.ours.push(a);
    res.duck.push(b);
    res.ratios.push(a.seconds / b.seconds);
    console.log(
      `  round ${round + 1}: ours ${a.seconds.toFixed(2)} s (${a.cpuSeconds?.toFixed(2)} CPU s, ${a.rssMiB?.toFixed(0)} MiB), DuckDB ${b.seconds.toFixed(2)} s (${b.cpuSeconds?.toFixed(2)} CPU s, ${b.rssMiB?.toFixed(0)} MiB), ratio ${(a.seconds / b.seconds).toFixed(2)}, ${machineLoad()}`,
    );
  }
  return res;
}
