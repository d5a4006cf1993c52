// `kernel-runner setup-agent` (the built CLI): prints everything and writes nothing without --write; --write merges
// AGENTS.md and the MCP configs (other servers and text kept, the same bytes when run again); a config it cannot
// read is refused and left untouched, and nothing else is written then.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensureBuilt, runCli, tempDir } from './submit/helpers';

let work: string;
before(() => {
  ensureBuilt();
  work = tempDir('kr-setup-agent-');
});
after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

test('printed first, written only with --write, merged and idempotent', async () => {
  const dir = path.join(work, 'project');
  mkdirSync(path.join(dir, '.vscode'), { recursive: true });
  writeFileSync(path.join(dir, 'AGENTS.md'), '# Project rules\n\nUse tabs.\n');
  writeFileSync(
    path.join(dir, '.vscode', 'mcp.json'),
    JSON.stringify({ servers: { other: { type: 'stdio', command: 'other' } }, inputs: [] }),
  );
  const before = readdirSync(dir).sort();
  const printed = await runCli(['setup-agent', dir, '--server', 'gpumode']);
  assert.equal(printed.code, 0, printed.stderr);
  assert.match(printed.stdout, /<!-- kernel-runner:start -->/);
  assert.match(printed.stdout, /"mcpServers"/);
  assert.match(
    printed.stdout,
    /\[mcp_servers\.kernel-runner\]\ncommand = "kernel-runner"\nargs = \["mcp", "--server", "gpumode"\]/,
  );
  assert.match(printed.stdout, /Nothing written/);
  assert.deepEqual(readdirSync(dir).sort(), before);
  assert.equal(readFileSync(path.join(dir, 'AGENTS.md'), 'utf8'), '# Project rules\n\nUse tabs.\n');

  const written = await runCli(['setup-agent', dir, '--write']);
  assert.equal(written.code, 0, written.stderr);
  const agents = readFileSync(path.join(dir, 'AGENTS.md'), 'utf8');
  assert.ok(agents.startsWith('# Project rules\n\nUse tabs.\n\n<!-- kernel-runner:start -->'));
  const vscode = JSON.parse(readFileSync(path.join(dir, '.vscode', 'mcp.json'), 'utf8'));
  assert.deepEqual(vscode, {
    servers: {
      other: { type: 'stdio', command: 'other' },
      'kernel-runner': { type: 'stdio', command: 'kernel-runner', args: ['mcp'] },
    },
    inputs: [],
  });
  assert.deepEqual(JSON.parse(readFileSync(path.join(dir, '.mcp.json'), 'utf8')), {
    mcpServers: { 'kernel-runner': { command: 'kernel-runner', args: ['mcp'] } },
  });
  const files = ['AGENTS.md', '.vscode/mcp.json', '.mcp.json'].map((f) => readFileSync(path.join(dir, f), 'utf8'));
  assert.equal((await runCli(['setup-agent', dir, '--write'])).code, 0);
  assert.deepEqual(
    ['AGENTS.md', '.vscode/mcp.json', '.mcp.json'].map((f) => readFileSync(path.join(dir, f), 'utf8')),
    files,
  );
});

test('a config that is not plain JSON is refused and nothing is written', async () => {
  const dir = path.join(work, 'jsonc');
  mkdirSync(path.join(dir, '.vscode'), { recursive: true });
  const jsonc = '{\n  // my servers\n  "servers": {}\n}\n';
  writeFileSync(path.join(dir, '.vscode', 'mcp.json'), jsonc);
  const r = await runCli(['setup-agent', dir, '--write']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /mcp\.json: not plain JSON .* left as it is/);
  assert.equal(readFileSync(path.join(dir, '.vscode', 'mcp.json'), 'utf8'), jsonc);
  assert.equal(existsSync(path.join(dir, 'AGENTS.md')), false);
  assert.equal(existsSync(path.join(dir, '.mcp.json')), false);
  const missing = await runCli(['setup-agent', path.join(work, 'nope')]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /not a folder/);
});
