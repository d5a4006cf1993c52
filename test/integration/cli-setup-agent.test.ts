// `kernel-runner setup-agent` (the built CLI): prints everything and writes nothing without --write; --write merges
// AGENTS.md and the MCP configs (other servers, comments and text kept, a user's own kernel-runner entry kept, the
// same bytes when run again); a config it cannot read is refused and left untouched, and nothing else is written
// then; links planted in the project (to a shell rc file, to a JSON file, dangling) are refused and nothing outside
// is written or created; a --server URL's credentials reach no file.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import { snapshot } from '../support/fileSnapshot';
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
  for (const f of ['.mcp.json', '.cursor/mcp.json'])
    assert.deepEqual(JSON.parse(readFileSync(path.join(dir, f), 'utf8')), {
      mcpServers: { 'kernel-runner': { command: 'kernel-runner', args: ['mcp'] } },
    });
  const all = ['AGENTS.md', '.vscode/mcp.json', '.mcp.json', '.cursor/mcp.json'];
  const files = all.map((f) => readFileSync(path.join(dir, f), 'utf8'));
  const again = await runCli(['setup-agent', dir, '--write']);
  assert.equal(again.code, 0);
  assert.match(again.stdout, /Everything was up to date/);
  assert.deepEqual(
    all.map((f) => readFileSync(path.join(dir, f), 'utf8')),
    files,
  );
});

test("VS Code config with comments and trailing commas is merged in place; a user's own kernel-runner entry is kept", async () => {
  const dir = path.join(work, 'jsonc');
  mkdirSync(path.join(dir, '.vscode'), { recursive: true });
  const jsonc = '{\n  // my servers\n  "servers": {\n    "other": { "command": "other" },\n  },\n}\n';
  writeFileSync(path.join(dir, '.vscode', 'mcp.json'), jsonc);
  const own = {
    mcpServers: {
      'kernel-runner': {
        command: '/opt/kr/bin/kernel-runner',
        args: ['mcp', '--server', 'http://box:8000'],
        env: { KERNEL_RUNNER_TOKEN_FILE: '/home/me/.kr-token' },
      },
    },
  };
  const ownText = JSON.stringify(own, null, 4);
  writeFileSync(path.join(dir, '.mcp.json'), ownText);
  const r = await runCli(['setup-agent', dir, '--write']);
  assert.equal(r.code, 0, r.stderr);
  const vscode = readFileSync(path.join(dir, '.vscode', 'mcp.json'), 'utf8');
  assert.ok(vscode.includes('// my servers'), vscode);
  assert.deepEqual(parseJsonc(vscode), {
    servers: {
      other: { command: 'other' },
      'kernel-runner': { type: 'stdio', command: 'kernel-runner', args: ['mcp'] },
    },
  });
  assert.equal(readFileSync(path.join(dir, '.mcp.json'), 'utf8'), ownText, 'the own entry kept, byte for byte');
  assert.match(r.stdout, /Kept your own kernel-runner entry in .*\.mcp\.json/);
});

test('a config that cannot be read is refused and nothing is written: all or nothing', async () => {
  const dir = path.join(work, 'broken');
  mkdirSync(dir, { recursive: true });
  // Claude Code reads .mcp.json as plain JSON: a comment there is refused
  const commented = '{\n  // mine\n  "mcpServers": {}\n}\n';
  writeFileSync(path.join(dir, '.mcp.json'), commented);
  const r = await runCli(['setup-agent', dir, '--write']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /\.mcp\.json: not plain JSON \(InvalidCommentToken on line 2\); left as it is/);
  assert.equal(readFileSync(path.join(dir, '.mcp.json'), 'utf8'), commented);
  assert.deepEqual(readdirSync(dir), ['.mcp.json'], 'no AGENTS.md, no .vscode, no .cursor');
  const missing = await runCli(['setup-agent', path.join(work, 'nope')]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /not a folder/);
});

test('links planted in the project are refused: nothing outside is written or created, nothing inside either', async () => {
  const outside = path.join(work, 'outside');
  mkdirSync(path.join(outside, 'vscode-elsewhere'), { recursive: true });
  writeFileSync(path.join(outside, '.bashrc'), 'export PATH="$HOME/bin:$PATH"\n');
  writeFileSync(path.join(outside, 'settings.json'), '{"editor.tabSize": 4}\n');
  writeFileSync(path.join(outside, 'vscode-elsewhere', 'mcp.json'), '{"servers": {}}\n');
  const rc = path.join(outside, '.bashrc');
  const json = path.join(outside, 'settings.json');
  const cases: Array<[string, string, string]> = [
    ['AGENTS.md', rc, 'to a shell rc file'],
    ['.mcp.json', json, 'to a JSON file'],
    ['.vscode', path.join(outside, 'vscode-elsewhere'), 'a folder to a folder outside'],
    ['.vscode/mcp.json', json, 'inside a real .vscode, to a JSON file'],
    ['.cursor/mcp.json', json, "Cursor's, to a JSON file"],
    ['.cursor', path.join(outside, 'vscode-elsewhere'), "Cursor's folder to a folder outside"],
    ['AGENTS.md', path.join(outside, 'AGENTS-new.md'), 'dangling'],
    ['.mcp.json', path.join(outside, 'new.json'), 'dangling'],
    ['.vscode', path.join(outside, 'new-folder'), 'a dangling folder link'],
  ];
  const before = snapshot(outside);
  for (const [i, [name, target, what]] of cases.entries()) {
    const dir = path.join(work, `linked-${i}`);
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    symlinkSync(target, path.join(dir, name));
    const inside = snapshot(dir);
    const r = await runCli(['setup-agent', dir, '--write', '--server', 'http://box:8000']);
    assert.equal(r.code, 2, `${name} ${what}: ${r.stdout}`);
    assert.match(r.stderr, new RegExp(`${name.replace('.', '\\.')}: a link: refused .*nothing was written`), what);
    assert.deepEqual(snapshot(outside), before, `${name} ${what}: nothing outside written or created`);
    assert.deepEqual(snapshot(dir), inside, `${name} ${what}: nothing inside written either`);
  }
});

test("a --server URL's user, password and query never reach a file, nor what is printed", async () => {
  const dir = path.join(work, 'creds');
  mkdirSync(dir, { recursive: true });
  const r = await runCli([
    'setup-agent',
    dir,
    '--write',
    '--server',
    'https://alice:s3cr3t-pass@runner.example:8443/?token=tok-9f8e7d#frag',
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /the user name and password, the query, the fragment of the --server URL left out/);
  const written = Object.values(snapshot(dir))
    .filter((v) => v !== 'dir')
    .map((b64) => Buffer.from(b64, 'base64').toString('utf8'));
  assert.equal(written.length, 4);
  for (const text of [...written, r.stdout]) {
    for (const secret of ['alice', 's3cr3t-pass', 'tok-9f8e7d', 'frag']) assert.ok(!text.includes(secret), text);
  }
  assert.deepEqual(JSON.parse(readFileSync(path.join(dir, '.cursor', 'mcp.json'), 'utf8')), {
    mcpServers: {
      'kernel-runner': { command: 'kernel-runner', args: ['mcp', '--server', 'https://runner.example:8443/'] },
    },
  });
});
