// Where the real-VS-Code tools are (scripts/setup-vscode-test.sh writes tools.env): Node 24, the VS Code server of
// code-server, Chromium. Shared by run.mjs and installed.mjs.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export function findTools() {
  const toolsDir = process.env.KR_TOOLS_DIR || join(homedir(), '.cache/kernel-runner-test-tools');
  const fromFile = {};
  const envFile = join(toolsDir, 'tools.env');
  if (existsSync(envFile)) {
    for (const line of readFileSync(envFile, 'utf8').split('\n')) {
      const m = /^(\w+)=(.*)$/.exec(line.trim());
      if (m) fromFile[m[1]] = m[2];
    }
  }
  const pick = (k, fallback) => process.env[k] || fromFile[k] || fallback;
  const tools = {
    node24: pick('KR_NODE24'),
    server: pick('KR_VSCODE_SERVER'),
    chromium: pick('KR_CHROMIUM', '/usr/bin/chromium'),
  };
  const missing = Object.entries(tools)
    .filter(([, p]) => !p || !existsSync(p))
    .map(([k]) => k);
  return { tools, missing, toolsDir };
}
