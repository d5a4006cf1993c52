// An MCP session with `kernel-runner mcp` (the built CLI) through the MCP SDK's own client over stdio: every text
// the server sends (answers and progress messages) is kept, for the tests that check what never appears in them.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cli } from './submit/helpers';

/** A tool's JSON answer, read by the test as it needs. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the answers' shapes are checked by the assertions and the digest schema
type Json = any;

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
    env: { ...(process.env as Record<string, string>), NO_COLOR: '1', ...env },
    stderr: 'pipe',
  });
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
