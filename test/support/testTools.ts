// Tools that scripts/setup-vscode-test.sh installs outside the project (Node 24, the VS Code server, the MCP
// Inspector): an environment variable of the name, else the line of that name in its tools.env.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const toolsDir = process.env.KR_TOOLS_DIR || join(homedir(), '.cache/kernel-runner-test-tools');

/** The path that `name` (KR_NODE24, KR_MCP_INSPECTOR, ...) names, when that file exists. */
export function testTool(name: string): string | undefined {
  let value = process.env[name];
  const envFile = join(toolsDir, 'tools.env');
  if (!value && existsSync(envFile)) {
    value = new RegExp(`^${name}=(.*)$`, 'm').exec(readFileSync(envFile, 'utf8'))?.[1]?.trim();
  }
  return value && existsSync(value) ? value : undefined;
}
