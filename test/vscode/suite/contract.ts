// Starts the GPU MODE contract server (test/vscode/contractProcess.ts, run with tsx) from inside the extension
// host and talks to it over JSON lines.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { repoRoot } from './helpers';

export interface ContractRule {
  method?: string;
  /** RegExp source matched against the path (no query). */
  path: string;
  status: number;
  detail?: string;
  retryAfter?: number;
  times?: number;
}

export interface Contract {
  url: string;
  /** A cli_id the server already knows (account "alice"). */
  aliceId: string;
  failNext(rule: ContractRule): Promise<void>;
  requests(): Promise<Array<{ method: string; path: string; cliId?: string }>>;
  /** What the browser does after the provider's page: GET the redirect URI with a code and the state. */
  oauth(authorizeUrl: string, code?: string): Promise<{ status: number; body: string }>;
  /** Lets the `contract: hold` submissions go on past `running`: the ids released. */
  release(): Promise<number[]>;
  close(): Promise<void>;
}

/** Starts the contract server; `options` are its ContractServerOptions (e.g. `{ deployment: 'old' }`), as JSON. */
export async function startContract(options: Record<string, unknown> = {}): Promise<Contract> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', join(repoRoot, 'test/vscode/contractProcess.ts')],
    {
      cwd: repoRoot,
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', KR_CONTRACT_OPTIONS: JSON.stringify(options) },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const waiting = new Map<number, (msg: Record<string, unknown>) => void>();
  let ready: ((msg: Record<string, unknown>) => void) | undefined;
  const readyMsg = new Promise<Record<string, unknown>>((resolve, reject) => {
    ready = resolve;
    child.once('exit', (code) => reject(new Error(`contract server exited (${code}): ${stderr}`)));
    setTimeout(() => reject(new Error(`contract server did not start within 30 s: ${stderr}`)), 30_000);
  });
  const lines = createInterface({ input: child.stdout! });
  lines.on('line', (line) => {
    let msg: Record<string, unknown>;
    try {
      msg = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    if (msg.ready) ready?.(msg);
    else if (typeof msg.id === 'number') {
      waiting.get(msg.id)?.(msg);
      waiting.delete(msg.id);
    }
  });
  const first = await readyMsg;
  let nextId = 1;
  const ask = (cmd: Record<string, unknown>): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, (msg) => (msg.error ? reject(new Error(String(msg.error))) : resolve(msg)));
      child.stdin!.write(`${JSON.stringify({ ...cmd, id })}\n`);
    });
  return {
    url: String(first.url),
    aliceId: String(first.aliceId),
    failNext: async (rule) => {
      await ask({ cmd: 'failNext', rule });
    },
    requests: async () =>
      (await ask({ cmd: 'requests' })).requests as Array<{ method: string; path: string; cliId?: string }>,
    oauth: async (url, code) =>
      (await ask({ cmd: 'oauth', url, ...(code ? { code } : {}) })) as unknown as { status: number; body: string },
    release: async () => (await ask({ cmd: 'release' })).released as number[],
    close: async () => {
      child.stdin?.end();
      const exited = new Promise((r) => child.once('exit', r));
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
