// `kernel-runner mcp` (src/cli/mcp) as an MCP server definition (package.json's
// contributes.mcpServerDefinitionProviders), so that agents in VS Code and the chat's tool picker find it without
// an mcp.json. vscode.lm.registerMcpServerDefinitionProvider came with VS Code 1.101; our engine is 1.100, whose
// types lack it: it is looked up at run time and left out where the host does not have it.
//
// The runner's token (SecretStorage, per server URL) reaches the server only in its environment
// (KERNEL_RUNNER_TOKEN, which `kernel-runner mcp` reads as `submit` does), added when VS Code resolves the definition
// to start it: never in the listed definition, its arguments, settings or logs.
import * as vscode from 'vscode';
import { join } from 'node:path';
import { isGpuModeUrl } from '../../core/gpumode/target';

const MCP_PROVIDER_ID = 'kernelRunner.mcp';
const MCP_SERVER_LABEL = 'Kernel Runner';
const TOKEN_ENV = 'KERNEL_RUNNER_TOKEN';

/** The parts of a stdio definition we read and write (VS Code 1.101's McpStdioServerDefinition). */
export interface StdioDefinition {
  readonly label: string;
  command: string;
  args: string[];
  env: Record<string, string | number | null>;
  version?: string;
}

type StdioDefinitionClass = new (
  label: string,
  command: string,
  args?: string[],
  env?: Record<string, string | number | null>,
  version?: string,
) => StdioDefinition;

interface McpProvider {
  onDidChangeMcpServerDefinitions: vscode.Event<void>;
  provideMcpServerDefinitions(token: vscode.CancellationToken): StdioDefinition[];
  resolveMcpServerDefinition(definition: StdioDefinition, token: vscode.CancellationToken): Promise<StdioDefinition>;
}

interface McpHost {
  registerMcpServerDefinitionProvider?: (id: string, provider: McpProvider) => vscode.Disposable;
}

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

/** The runner the definition's command line names (its `--server`); undefined for the embedded runner. */
function serverOf(args: readonly string[]): string | undefined {
  const i = args.indexOf('--server');
  return i >= 0 ? args[i + 1] : undefined;
}

/**
 * The definition as VS Code starts it: with the stored token of the runner it names in its environment. None for
 * the embedded runner (it makes its own), for GPU MODE (the server reads popcorn-cli's cli_id as the editor does;
 * our token never goes there) or when none is stored (the server then finds a loopback runner's own, as `submit`).
 */
async function resolveMcpDefinition(
  definition: StdioDefinition,
  storedToken: (server: string) => Promise<string | undefined>,
  make: (
    label: string,
    command: string,
    args: string[],
    env: Record<string, string | number | null>,
    version?: string,
  ) => StdioDefinition,
): Promise<StdioDefinition> {
  const server = serverOf(definition.args);
  const token = server && !isGpuModeUrl(server) ? await storedToken(server) : undefined;
  if (!token) return definition;
  // a new definition: the listed one, which VS Code keeps, never holds the token
  return make(
    definition.label,
    definition.command,
    [...definition.args],
    { ...definition.env, [TOKEN_ENV]: token },
    definition.version,
  );
}

/** A definition's fields as plain data (the test API's view of it). */
export function mcpDefinitionView(d: StdioDefinition): {
  label: string;
  command: string;
  args: string[];
  env: Record<string, string | number | null>;
} {
  return { label: d.label, command: d.command, args: [...d.args], env: { ...d.env } };
}

export interface McpRegistration extends vscode.Disposable {
  /** The configured server changed: VS Code asks for the definitions again. */
  serverChanged(): void;
  /** Test API: what the provider lists, and that definition resolved as VS Code would before starting it. */
  provided(): StdioDefinition[];
  resolve(definition: StdioDefinition): Promise<StdioDefinition>;
}

/** Registers the definition where the host supports it; undefined on older hosts. */
export function registerMcpServer(
  extensionPath: string,
  version: string,
  server: () => string,
  storedToken: (server: string) => Promise<string | undefined>,
): McpRegistration | undefined {
  const lm = vscode.lm as unknown as McpHost;
  const Definition = (vscode as unknown as { McpStdioServerDefinition?: StdioDefinitionClass })
    .McpStdioServerDefinition;
  if (typeof lm.registerMcpServerDefinitionProvider !== 'function' || typeof Definition !== 'function')
    return undefined;
  const changed = new vscode.EventEmitter<void>();
  const provided = (): StdioDefinition[] => {
    const { command, args, env } = mcpCommandLine(extensionPath, server());
    return [new Definition(MCP_SERVER_LABEL, command, args, env, version)];
  };
  const resolve = (definition: StdioDefinition) =>
    resolveMcpDefinition(definition, storedToken, (...a) => new Definition(...a));
  const registration = lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: provided,
    resolveMcpServerDefinition: resolve,
  });
  return {
    serverChanged: () => changed.fire(),
    provided,
    resolve,
    dispose: () => {
      registration.dispose();
      changed.dispose();
    },
  };
}
