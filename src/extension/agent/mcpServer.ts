// `kernel-runner mcp` (src/cli/mcp) as an MCP server definition (package.json's
// contributes.mcpServerDefinitionProviders), so that agents in VS Code and the chat's tool picker find it without
// an mcp.json. vscode.lm.registerMcpServerDefinitionProvider came with VS Code 1.101; our engine is 1.100, whose
// types lack it: it is looked up at run time and left out where the host does not have it.
import * as vscode from 'vscode';
import { join } from 'node:path';

const MCP_PROVIDER_ID = 'kernelRunner.mcp';

interface McpHost {
  registerMcpServerDefinitionProvider?: (
    id: string,
    provider: { provideMcpServerDefinitions(token: vscode.CancellationToken): unknown[] },
  ) => vscode.Disposable;
}

type StdioDefinition = new (
  label: string,
  command: string,
  args?: string[],
  env?: Record<string, string | number | null>,
  version?: string,
) => unknown;

/** The command line of the server: this extension's own CLI bundle, run by the extension host's Node (Electron as Node in desktop VS Code). */
export function mcpCommandLine(
  extensionPath: string,
  server: string,
): { command: string; args: string[]; env: Record<string, string> } {
  return {
    command: process.execPath,
    args: [join(extensionPath, 'dist', 'cli.cjs'), 'mcp', ...(server ? ['--server', server] : [])],
    env: { ELECTRON_RUN_AS_NODE: '1' },
  };
}

/** Registers the definition where the host supports it; undefined on older hosts. */
export function registerMcpServer(
  extensionPath: string,
  version: string,
  server: () => string,
): vscode.Disposable | undefined {
  const lm = vscode.lm as unknown as McpHost;
  const Definition = (vscode as unknown as { McpStdioServerDefinition?: StdioDefinition }).McpStdioServerDefinition;
  if (typeof lm.registerMcpServerDefinitionProvider !== 'function' || typeof Definition !== 'function')
    return undefined;
  return lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
    provideMcpServerDefinitions: () => {
      const { command, args, env } = mcpCommandLine(extensionPath, server());
      return [new Definition('Kernel Runner', command, args, env, version)];
    },
  });
}
