// `kernel-runner submit` overhead over `python3` on a trivial script (the figure: median of 15
// interleaved runs; goal < 100 ms, must be < 150 ms), for
//  - the embedded runner (no --server: the runner starts and stops inside the command),
//  - an already running runner (--server: client, queue and executor only; the CLI loads no runner code),
// against the peer measured in the same rounds: python3 running the same script. Each round runs every command
// once, one after another, so a round's commands see the same machine load; the overhead of a round is the
// command's wall time minus python3's in that round, and the figure is the median over the rounds. For reference,
// node alone (`node -e 0`, the floor no Node CLI goes below) and node loading the CLI for `--help`.
// The CLI is run as users run it (dist/cli.cjs): a first run of each command warms what a user's first run leaves
// behind, the code cache (~/.cache/kernel-runner) and the embedded runner's namespace check (~/.local/state); that
// first run is timed too, once, with empty cache and state folders of its own. CPU
// seconds of each command are printed too: on a shared machine they say what the command costs while the wall
// time also says how busy the machine was. Timings are reported, never a failure of the benchmark.
// With BENCH_PEER=<an older checkout, built> (support.ts) its CLI runs in the same rounds, embedded and against a
// `serve` of its own, beside ours against a `serve` of ours: the A/B of a change, under the same load.
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRunner } from '../src/runner/index';
import { machineLoad, median, peerCli, q, startServe, timeShell } from './support';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist/cli.cjs');
const N = Number(process.env.BENCH_RUNS ?? 15);
const GOAL_MS = 100;
const LIMIT_MS = 150;

interface Series {
  wall: number[];
  cpu: number[];
}

async function main(): Promise<void> {
  if (!existsSync(cli)) throw new Error('run `npm run build` first (dist/cli.cjs is missing)');
  const data = path.join(root, 'bench/data');
  mkdirSync(data, { recursive: true });
  const script = path.join(data, 'trivial.py');
  writeFileSync(script, 'print("hello")\n');
  const cwd = mkdtempSync(path.join(tmpdir(), 'kr-bench-overhead-'));
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kr-bench-overhead-data-'));
  const runner = await startRunner({ port: 0, dataDir, profiler: 'none', heartbeatMs: 15_000 });
  const peer = peerCli();
  const serveDirs = peer
    ? [
        mkdtempSync(path.join(tmpdir(), 'kr-bench-overhead-serve-')),
        mkdtempSync(path.join(tmpdir(), 'kr-bench-overhead-peer-')),
      ]
    : [];
  const serves = peer
    ? [await startServe(cli, serveDirs[0] as string), await startServe(peer, serveDirs[1] as string)]
    : [];
  const env = { ...process.env, NO_COLOR: '1' };
  const node = q(process.execPath);
  type Name = 'python' | 'embedded' | 'server' | 'nodeAlone' | 'help' | 'peerEmbedded' | 'oursServe' | 'peerServe';
  const commands: Partial<Record<Name, string>> = {
    python: `python3 ${q(script)}`,
    embedded: `${node} ${q(cli)} submit ${q(script)}`,
    server: `${node} ${q(cli)} submit ${q(script)} --server ${runner.url}`,
    nodeAlone: `${node} -e 0`,
    help: `${node} ${q(cli)} --help`,
  };
  if (peer) {
    commands.peerEmbedded = `${node} ${q(peer)} submit ${q(script)}`;
    commands.oursServe = `${node} ${q(cli)} submit ${q(script)} --server ${serves[0]?.url}`;
    commands.peerServe = `${node} ${q(peer)} submit ${q(script)} --server ${serves[1]?.url}`;
  }
  const names: Name[] = ['python', 'embedded', 'server', 'nodeAlone', 'help', 'peerEmbedded', 'oursServe', 'peerServe'];
  const series = Object.fromEntries(names.map((k) => [k, { wall: [], cpu: [] }])) as unknown as Record<Name, Series>;
  const loadBefore = machineLoad();
  const fresh = mkdtempSync(path.join(tmpdir(), 'kr-bench-overhead-fresh-'));
  try {
    // a user's very first run: nothing cached, nothing remembered (after one run of python3, for the file cache)
    await timeShell(commands.python as string, { env, cwd });
    const firstRun = await timeShell(commands.embedded as string, {
      env: { ...env, XDG_CACHE_HOME: path.join(fresh, 'cache'), XDG_STATE_HOME: path.join(fresh, 'state') },
      cwd,
    });
    const peerFirstRun = peer
      ? await timeShell(commands.peerEmbedded as string, {
          env: {
            ...env,
            XDG_CACHE_HOME: path.join(fresh, 'peer-cache'),
            XDG_STATE_HOME: path.join(fresh, 'peer-state'),
          },
          cwd,
        })
      : null;
    // warm the file cache and the CLI's code cache (one per command)
    for (const cmd of Object.values(commands)) await timeShell(cmd, { env, cwd });
    for (let i = 0; i < N; i++) {
      for (const [name, cmd] of Object.entries(commands) as Array<[Name, string]>) {
        const r = await timeShell(cmd, { env, cwd });
        if (r.code !== 0) throw new Error(`${cmd} failed (exit ${r.code})`);
        series[name].wall.push(r.seconds * 1000);
        if (r.cpuSeconds !== null) series[name].cpu.push(r.cpuSeconds * 1000);
      }
    }
    const wall = (name: Name) => median(series[name].wall);
    const cpu = (name: Name) =>
      series[name].cpu.length ? `${median(series[name].cpu).toFixed(0)} ms CPU` : '? ms CPU';
    /** Median over the rounds of (command - python3) in the same round. */
    const overhead = (name: Name) => median(series[name].wall.map((w, i) => w - (series.python.wall[i] as number)));
    const p = wall('python');
    const verdict = (ms: number) =>
      `goal < ${GOAL_MS} ms: ${ms < GOAL_MS ? 'PASS' : 'FAIL'}; limit < ${LIMIT_MS} ms: ${ms < LIMIT_MS ? 'PASS' : 'FAIL'}`;
    const line = (label: string, name: Name) =>
      `  ours  ${label.padEnd(42)} ${wall(name).toFixed(0).padStart(5)} ms  overhead ${overhead(name).toFixed(0).padStart(4)} ms  ${(wall(name) / p).toFixed(2)}x the peer  (${cpu(name)})  ${verdict(overhead(name))}`;
    console.log(`kernel-runner submit on a trivial script: overhead over python3, median of ${N} interleaved runs`);
    console.log(`  machine: ${loadBefore} at start, ${machineLoad()} at end`);
    console.log(`  peer  ${'python3 trivial.py'.padEnd(42)} ${p.toFixed(0).padStart(5)} ms  (${cpu('python')})`);
    console.log(line('kernel-runner submit (embedded runner)', 'embedded'));
    console.log(line('kernel-runner submit --server (running)', 'server'));
    console.log(
      `  first run of \`submit\` on a machine (no code cache, no remembered namespace check): ${(firstRun.seconds * 1000).toFixed(0)} ms`,
    );
    if (peer && peerFirstRun) {
      console.log(`  A/B against BENCH_PEER (${peer}), same rounds:`);
      for (const [label, ours, theirs] of [
        ['embedded', 'embedded', 'peerEmbedded'],
        ['--server (a serve process each)', 'oursServe', 'peerServe'],
      ] as const) {
        console.log(
          `    ${label.padEnd(32)} overhead ours ${overhead(ours).toFixed(0).padStart(4)} ms, peer ${overhead(theirs).toFixed(0).padStart(4)} ms  (${cpu(ours)} vs ${cpu(theirs)}; wall ${wall(ours).toFixed(0)} vs ${wall(theirs).toFixed(0)} ms)`,
        );
      }
      console.log(
        `    first run                        ours ${(firstRun.seconds * 1000).toFixed(0)} ms, peer ${(peerFirstRun.seconds * 1000).toFixed(0)} ms`,
      );
    }
    console.log(
      `  (reference: node -e 0 ${wall('nodeAlone').toFixed(0)} ms, ${cpu('nodeAlone')}; node loading the CLI for --help ${wall('help').toFixed(0)} ms, ${cpu('help')})`,
    );
    // the closing lines, one per variant: `RESULT submit-overhead <variant>: <figure> — goal …: PASS|FAIL; limit …: PASS|FAIL`
    for (const [label, name] of [
      ['embedded', 'embedded'],
      ['--server', 'server'],
    ] as const) {
      const ms = overhead(name);
      console.log(
        `RESULT submit-overhead ${label}: ${ms.toFixed(0)} ms over python3 (${(wall(name) / p).toFixed(2)}x its ${p.toFixed(0)} ms) — ${verdict(ms)}`,
      );
    }
  } finally {
    for (const s of serves) {
      s.child.kill('SIGTERM');
      await once(s.child, 'exit');
    }
    for (const d of serveDirs) rmSync(d, { recursive: true, force: true });
    await runner.close();
    rmSync(cwd, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(fresh, { recursive: true, force: true });
  }
}

void main();
