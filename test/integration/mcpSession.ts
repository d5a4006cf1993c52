// An MCP session with `kernel-runner mcp` (the built CLI) through the MCP SDK's own client over stdio: every text
// the server sends (answers and progress messages) is kept, for the tests that check what never appears in them.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { cli } from './submit/helpers';

/** A tool's JSON answer, read by the test as it needs. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the answers' shapes are checked by the assertions and the digest schema
type Json = any;

/** The tools `kernel-runner mcp` lists, sorted: whatever client asks (the SDK's, the Inspector), these six. */
export const MCP_TOOL_NAMES = ['compare', 'get_run', 'isa', 'list_leaderboards', 'profile_digest', 'submit'];

export interface Session {
  client: Client;
  /** Every text the server sent: tool answers and progress messages. */
  seen: string[];
  call(
    name: string,
    args: Record<string, unknown>,
    opts?: { signal?: AbortSignal; onProgress?: (message: string) => void },
  ): Promise<{ isError: boolean; text: string; json: Json; links: Array<{ uri: string; name: string }> }>;
  close(): Promise<void>;
}

/** `kernel-runner mcp ...args` started by the SDK's stdio client transport, in `cwd`. */
export async function mcpSession(cwd: string, args: string[], env: Record<string, string> = {}): Promise<Session> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, 'mcp', ...args],
    cwd,
    env: sessionEnv(env),
    stderr: 'pipe',
  });
  return sessionOver(transport);
}

export interface ProcessSession extends Session {
  /** Ends the server's stdin and waits for the process to exit by itself (nothing kills it). */
  endInput(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * The same session over a process this test holds: the SDK's transport kills a server that does not exit soon
 * after its stdin closes, which would hide one that never exits.
 */
export async function mcpProcessSession(
  cwd: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<ProcessSession> {
  const child = spawn(process.execPath, [cli, 'mcp', ...args], {
    cwd,
    env: sessionEnv(env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stderr?.resume();
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const session = await sessionOver(new ChildTransport(child));
  return {
    ...session,
    async endInput() {
      child.stdin?.end();
      const [code, signal] = await exited;
      return { code, signal };
    },
    async close() {
      child.stdin?.end();
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

function sessionEnv(env: Record<string, string>): Record<string, string> {
  return { ...(process.env as Record<string, string>), NO_COLOR: '1', ...env };
}

/** JSON-RPC lines over a child's stdin and stdout. */
class ChildTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private readonly buffer = new ReadBuffer();
  constructor(private readonly child: ChildProcess) {}
  async start(): Promise<void> {
    this.child.stdout?.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk);
      for (let m = this.buffer.readMessage(); m; m = this.buffer.readMessage()) this.onmessage?.(m);
    });
    this.child.on('close', () => this.onclose?.());
    this.child.on('error', (err) => this.onerror?.(err));
  }
  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.child.stdin?.writable) throw new Error('the server has closed its input');
    this.child.stdin.write(serializeMessage(message));
  }
  async close(): Promise<void> {
    this.child.stdin?.end();
  }
}

async function sessionOver(transport: Transport): Promise<Session> {
  const client = new Client({ name: 'kernel-runner-test', version: '1' });
  await client.connect(transport);
  const seen: string[] = [];
  return {
    client,
    seen,
    async call(name, callArgs, opts = {}) {
      const r = await client.callTool({ name, arguments: callArgs }, undefined, {
        timeout: 600_000,
        ...(opts.signal ? { signal: opts.signal } : {}),
        onprogress: (p) => {
          seen.push(p.message ?? '');
          opts.onProgress?.(p.message ?? '');
        },
      });
      // the answer's text; resource links (traces, result files, disassembly) are content items of their own
      const text = (r.content as Array<{ type: string; text?: string }>)
        .filter((c) => c.type === 'text')
        .map((c) => c.text)
        .join('');
      seen.push(text);
      let json: Json;
      try {
        json = JSON.parse(text);
      } catch {
        json = null;
      }
      const links = (r.content as Array<{ type: string; uri: string; name: string }>).filter(
        (c) => c.type === 'resource_link',
      );
      return { isError: r.isError === true, text, json, links };
    },
    close: () => client.close(),
  };
}
