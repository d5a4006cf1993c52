// Shared by the submit integration tests: the built CLI as a real process, a real `kernel-runner serve`
// process, and a TCP proxy whose connections a test can cut.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket, connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const cli = path.join(repoRoot, 'dist/cli.cjs');
export const problems = path.join(repoRoot, 'examples/problems');
export const vectoradd = path.join(problems, 'vectoradd_py');
export const scripts = path.join(repoRoot, 'examples/scripts');
const testBin = path.join(repoRoot, 'test/bin');
/** PATH with the test stand-in rocprofv3 first. */
export const profilingPath = `${testBin}${path.delimiter}${process.env.PATH ?? ''}`;

/** Builds dist/ unless the CLI and its sql.js wasm are there (a hook: `before(ensureBuilt)`). */
export function ensureBuilt(): void {
  ensureBuiltWith();
}

/** Builds dist/ unless the CLI, its sql.js wasm and `alsoNeeded` (paths from the repo root) are there. */
export function ensureBuiltWith(...alsoNeeded: string[]): void {
  if (![cli, ...['dist/sql-wasm.wasm', ...alsoNeeded].map((f) => path.join(repoRoot, f))].every((f) => existsSync(f))) {
    const r = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: repoRoot, stdio: 'inherit' });
    if (r.status !== 0) throw new Error('build failed');
  }
}

export function tempDir(prefix: string): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Called with the child once it runs (e.g. to send it SIGINT when some output appears). */
  onStdout?: (text: string, child: ChildProcess) => void;
}

/** Runs `node dist/cli.cjs ...args` to its end. */
export function runCli(args: string[], opts: CliOptions = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: opts.cwd ?? tmpdir(),
      env: { ...process.env, NO_COLOR: '1', ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (t: string) => {
      stdout += t;
      opts.onStdout?.(stdout, child);
    });
    child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

export interface ServeProcess {
  url: string;
  dataDir: string;
  stop(): Promise<void>;
}

/**
 * Starts `node dist/cli.cjs serve --port 0 ...` and waits for its "listening on" line. Without --token/--token-file
 * in extraArgs it passes --no-token (serve's default is a generated token; tests of that start serve themselves).
 */
export function startServe(extraArgs: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  const dataDir = tempDir('kr-submit-serve-');
  const auth = extraArgs.some((a) => a === '--token' || a === '--token-file') ? [] : ['--no-token'];
  const child = spawn(
    process.execPath,
    [
      cli,
      'serve',
      '--port',
      '0',
      '--problems',
      problems,
      '--data-dir',
      dataDir,
      '--heartbeat',
      '0.5',
      '--kill-grace',
      '1',
      ...auth,
      ...extraArgs,
    ],
    {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    // until it says where it listens or exits, however long a busy machine takes; the bound is a safety net only,
    // and ends the child so that no test file is kept alive by a serve nobody stops
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not start within 120 s: ${out}${err}`));
    }, 120_000);
    child.stderr.setEncoding('utf8').on('data', (t: string) => (err += t));
    child.stdout.setEncoding('utf8').on('data', (t: string) => {
      out += t;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({
          url: m[1] as string,
          dataDir,
          stop: () =>
            new Promise<void>((done) => {
              child.once('close', () => {
                rmSync(dataDir, { recursive: true, force: true });
                done();
              });
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}: ${out}${err}`));
    });
  });
}

export interface CuttableProxy {
  url: string;
  /** Destroys every open connection (both sides), as a network failure would. */
  cutAll(): number;
  close(): Promise<void>;
}

/** A TCP proxy to `target` (http://host:port); new connections keep working after a cut. */
export async function startProxy(target: string): Promise<CuttableProxy> {
  const { hostname, port } = new URL(target);
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    for (const s of [client, upstream]) {
      open.add(s);
      s.on('close', () => open.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port: own } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${own}`,
    cutAll() {
      const n = open.size;
      for (const s of open) s.destroy();
      return n;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of open) s.destroy();
        server.close(() => r());
      }),
  };
}
