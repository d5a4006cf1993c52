// Shared by the runner's integration tests: a real runner on 127.0.0.1 port 0 with a temporary data dir,
// uploads with fetch + FormData, and an SSE reader built on eventsource-parser.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createParser } from 'eventsource-parser';
import { EXTENSIONS_HEADER, expandOutput, outputEventSchema } from '../../../src/core/protocol/api';
import { startRunner, type RunnerOptions, type RunningRunner } from '../../../src/runner/index';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const problemsDir = path.join(repoRoot, 'examples/problems');
export const testBin = path.join(repoRoot, 'test/bin');
export const solutions = path.join(problemsDir, 'vectoradd_py/solutions');

/**
 * The built CLI, `node <it> serve ...` (npm test builds first; built here when missing): it starts on a fifth of
 * the CPU that `--import tsx src/cli/main.ts` takes to compile the sources, which adds up over a suite's starts.
 */
export function builtCli(): string {
  const cli = path.join(repoRoot, 'dist/cli.cjs');
  if (!existsSync(cli)) {
    const r = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: repoRoot, stdio: 'inherit' });
    if (r.status !== 0) throw new Error('build failed');
  }
  return cli;
}

export interface TestRunner extends RunningRunner {
  dataDir: string;
  /** Stops the runner and deletes its data dir. */
  dispose(): Promise<void>;
}

/** A program that prints `working`, then on SIGINT finishes as rocprofv3 does (writes its files), within a grace period. */
export const graceful = `
import signal, sys, time
def stop(*_):
    print("got SIGINT, writing files", flush=True)
    sys.exit(130)
signal.signal(signal.SIGINT, stop)
print("working", flush=True)
time.sleep(60)
`;

export function tempDir(prefix = 'kr-runner-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/** A PATH folder holding python3 only (no ROCm or CUDA compilers, whatever the machine has). */
export function pythonOnlyBin(): string {
  const bin = tempDir('kr-bin-');
  // the interpreter itself (a pyenv shim would need bash and pyenv on PATH)
  const python = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
  symlinkSync(python, path.join(bin, 'python3'));
  return bin;
}

export async function startTestRunner(opts: RunnerOptions = {}): Promise<TestRunner> {
  const dataDir = opts.dataDir ?? tempDir();
  const runner = await startRunner({
    port: 0,
    problemsDir,
    dataDir,
    profiler: 'none',
    heartbeatMs: 200,
    killGraceMs: 1000,
    ...opts,
  });
  return {
    ...runner,
    dataDir,
    async dispose() {
      await runner.close();
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface SseEvent {
  id: string | undefined;
  event: string;
  data: unknown;
  raw: string;
}

export interface UploadOptions {
  fileName?: string;
  content?: string | Uint8Array;
  extensions?: boolean;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export function form(fileName: string, content: string | Uint8Array): FormData {
  const fd = new FormData();
  const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
  fd.append('file', new Blob([bytes]), fileName);
  return fd;
}

export function post(
  url: string,
  opts: UploadOptions & { content: string | Uint8Array; fileName: string },
): Promise<Response> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.extensions) headers[EXTENSIONS_HEADER] = '1';
  return fetch(url, { method: 'POST', body: form(opts.fileName, opts.content), headers, signal: opts.signal });
}

/** Reads a whole SSE response (until the server ends it), or until `stopAfter` says so. */
export async function readSse(
  res: Response,
  stopAfter?: (ev: SseEvent, all: SseEvent[]) => boolean,
): Promise<SseEvent[]> {
  if (!res.body) throw new Error('no body');
  const events: SseEvent[] = [];
  let stop = false;
  const parser = createParser({
    onEvent(msg) {
      if (stop) return;
      const ev: SseEvent = {
        id: msg.id,
        event: msg.event ?? 'message',
        data: JSON.parse(msg.data) as unknown,
        raw: msg.data,
      };
      events.push(ev);
      if (stopAfter?.(ev, events)) stop = true;
    },
  });
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  try {
    while (!stop) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
  } finally {
    if (stop) await reader.cancel().catch(() => undefined);
  }
  return events;
}

export async function submitAndRead(
  url: string,
  opts: UploadOptions & { content: string | Uint8Array; fileName: string },
): Promise<SseEvent[]> {
  const res = await post(url, opts);
  if (res.status !== 200) throw new Error(`POST ${url}: ${res.status} ${await res.text()}`);
  return readSse(res);
}

export function terminal(events: SseEvent[]): SseEvent {
  const last = events[events.length - 1];
  if (!last || (last.event !== 'result' && last.event !== 'error'))
    throw new Error(`stream did not end with result/error: ${events.map((e) => e.event).join(',')}`);
  return last;
}

/** The id of the job submitted as `fileName` (once the runner lists it): for a job sent on the streaming route. */
export async function jobIdOf(url: string, fileName: string): Promise<number> {
  return waitFor(`the job of ${fileName}`, async () => {
    const list = (await (await fetch(`${url}/user/submissions`)).json()) as Array<{ id: number; file_name: string }>;
    return list.find((s) => s.file_name === fileName)?.id;
  });
}

/** Reads the job's events until its program has printed `line`; fails if the job ended without it. */
export async function untilPrinted(url: string, id: number, line: string): Promise<void> {
  const isLine = (ev: SseEvent) =>
    ev.event === 'output' && expandOutput(outputEventSchema.parse(ev.data)).some((l) => l.text === line);
  const events = await readSse(await fetch(`${url}/jobs/${id}/events`), isLine);
  if (!events.some(isLine))
    throw new Error(`job ${id} ended without printing ${JSON.stringify(line)}: ${events.map((e) => e.raw).join('\n')}`);
}

/** Polls `probe` until it gives a value; the limit only ends a wait for something that never comes (a busy machine is slow). */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 120_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** False once the process is gone (a zombie waiting for a reaper counts as gone: it runs nothing). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

/** A marker no other process on the machine has in its command line. */
export function marker(): string {
  return `kr-mark-${process.pid}-${Math.floor(Math.random() * 1e9)}`;
}

/**
 * Pids (as seen here, on the host) of live processes with `mark` as an argument. A job's processes are found from
 * outside this way: inside its PID namespace a program's own pids mean nothing out here.
 */
export function withMarker(mark: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').includes(mark) && pidAlive(Number(name)))
        pids.push(Number(name));
    } catch {
      // gone
    }
  }
  return pids;
}
