// The language model tools (src/extension/agent/tools.ts) through VS Code's own vscode.lm API: listed in
// vscode.lm.tools, invoked with vscode.lm.invokeTool on the example problem and the embedded runner (the test
// stand-in rocprofv3 of test/bin for the profile), their runs in the Runs view like a Run from the palette. The
// submit tool's confirmation is asserted from its prepareInvocation: outside a chat, invokeTool shows it as a modal
// dialog that a test in the extension host cannot answer, so the invoking tests pre-approve the tools (test API).
// The MCP server definition: VS Code itself starts it against a `serve` with a token, which the server gets only in
// its environment (its process's /proc environ), and the test looks for the token in every file of the test's VS Code.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import type { KernelRunnerApi } from '../../../src/extension/api';
import { activateExtension, markedAlive, repoRoot, setting, waitFor, workspaceDir } from './helpers';

const submission = vscode.Uri.file(join(repoRoot, 'examples/problems/vectoradd_py/submission.py'));
const OURS = [
  'kernelRunner_submit',
  'kernelRunner_profileDigest',
  'kernelRunner_compare',
  'kernelRunner_listLeaderboards',
];

async function invoke(name: string, input: object): Promise<Record<string, unknown>> {
  const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
  const texts = result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : ''));
  assert.equal(texts.length, 1, 'one text part');
  return JSON.parse(texts[0] ?? '') as Record<string, unknown>;
}

describe('language model tools', function () {
  this.timeout(120_000);
  let api: KernelRunnerApi;

  before(async () => {
    api = await activateExtension();
    await setting('embedded.path', [join(repoRoot, 'test/bin')]);
    await setting('embedded.gpuName', 'MI300');
    await setting('openResults', 'never');
  });

  after(async () => {
    api.preApproveTools(false);
    for (const k of ['embedded.path', 'embedded.gpuName', 'openResults']) await setting(k, undefined);
    api.closePanels();
  });

  it('vscode.lm.tools lists our four tools with their descriptions and input schemas', () => {
    const ours = vscode.lm.tools.filter((t) => t.name.startsWith('kernelRunner_'));
    assert.deepEqual(ours.map((t) => t.name).sort(), [...OURS].sort());
    const submit = ours.find((t) => t.name === 'kernelRunner_submit');
    assert.match(submit?.description ?? '', /Use mode "test" first after every edit/);
    assert.deepEqual((submit?.inputSchema as { required?: string[] }).required, ['mode']);
  });

  it('the submit tool asks for confirmation, naming the file, the mode and the target; read-only tools do not', async () => {
    const prepared = api.prepareSubmit({
      file: submission.fsPath,
      mode: 'profile',
      leaderboard: 'vectoradd_py',
      gpu: 'MI300',
    });
    // (the file is outside the test workspace's folder: named by its full path)
    assert.equal(prepared?.confirmationMessages?.title, `Submit ${submission.fsPath} (profile) with Kernel Runner?`);
    assert.equal(
      prepared?.confirmationMessages?.message,
      `Profile: ${submission.fsPath} will be sent to embedded runner (leaderboard vectoradd_py, GPU MI300).`,
    );
    api.preApproveTools(true);
    try {
      assert.equal(api.prepareSubmit({ mode: 'test' })?.confirmationMessages, undefined, 'pre-approved in tests only');
    } finally {
      api.preApproveTools(false);
    }
  });

  it('invokeTool runs the tests of the example on the embedded runner: the answer names the tests passed, the run is in the Runs view', async () => {
    api.preApproveTools(true);
    try {
      const answer = await invoke('kernelRunner_submit', { file: submission.fsPath, mode: 'test' });
      assert.equal(answer.passed, true, JSON.stringify(answer));
      assert.equal(answer.outcome, 'success');
      assert.deepEqual(answer.tests, { passed: 3, failed: 0 });
      assert.equal(answer.summary, '3/3 tests passed');
      assert.equal(answer.leaderboard, 'vectoradd_py');
      assert.ok((answer.output_tail as string[]).includes('3/3 tests passed'));
      // the same run path as Run Tests from the palette: the last run, the channel, the run store
      assert.equal(api.lastRun()?.mode, 'test');
      const stored = api.storedRuns().find((r) => r.id === answer.run_id);
      assert.equal(stored?.headline, '3/3 tests passed');
      assert.ok(
        !JSON.stringify(answer).includes((await api.embeddedRunnerToken()) ?? '\u0000'),
        'no token in the answer',
      );
    } finally {
      api.preApproveTools(false);
    }
  });

  it('invokeTool profiles with the stand-in rocprofv3: the answer is the digest, saved beside the kept trace; the digest and compare tools read it', async () => {
    api.preApproveTools(true);
    try {
      const answer = await invoke('kernelRunner_submit', { file: submission.fsPath, mode: 'profile' });
      assert.equal(answer.passed, true, JSON.stringify(answer));
      const digests = answer.digests as Array<{
        digest: { schemaVersion: number; cases: unknown[] } | null;
        digest_path: string | null;
        trace: string;
      }>;
      // one per profiled run of the evaluator, each saved
      assert.ok(digests.length >= 1);
      for (const x of digests)
        assert.ok(
          x.digest?.schemaVersion === 1 && x.digest_path && existsSync(x.digest_path),
          JSON.stringify(x).slice(0, 300),
        );
      const d = digests[0]!;
      assert.ok(d.digest_path && existsSync(d.digest_path));
      assert.deepEqual(
        JSON.parse(readFileSync(d.digest_path, 'utf8')),
        d.digest,
        'the saved digest is the one answered',
      );
      assert.ok(d.trace.startsWith(api.runStoreFolder()), 'beside the trace kept in the run store');
      assert.ok(
        Buffer.byteLength(JSON.stringify(answer)) < 16_384 * digests.length + 8_192,
        'digests within their budget, not the trace',
      );

      const read = await invoke('kernelRunner_profileDigest', { run_id: answer.run_id });
      assert.deepEqual(read, d.digest);

      const again = await invoke('kernelRunner_submit', { file: submission.fsPath, mode: 'profile' });
      const compared = await invoke('kernelRunner_compare', { baseline: answer.run_id, candidate: again.run_id });
      assert.equal(compared.schemaVersion, 1);
      assert.ok(
        compared.baseline && typeof compared.baseline === 'object',
        'the candidate digest with its baseline section',
      );
    } finally {
      api.preApproveTools(false);
    }
  });

  it('cancelling the tool call cancels the job on the runner, as Cancel does', async () => {
    api.preApproveTools(true);
    const cts = new vscode.CancellationTokenSource();
    try {
      const slow = join(workspaceDir, 'slow_script.py');
      const call = vscode.lm.invokeTool(
        'kernelRunner_submit',
        { input: { file: slow, mode: 'test' }, toolInvocationToken: undefined },
        cts.token,
      );
      const settled = call.then(
        () => 'resolved',
        (err: unknown) => `rejected: ${String(err)}`,
      );
      const mark = await waitFor('the slow script to start', () =>
        api
          .lastRunLines()
          .map((l) => /^slow_script started mark=(\S+)$/.exec(l)?.[1])
          .find(Boolean),
      );
      assert.ok(markedAlive(mark));
      cts.cancel();
      await settled;
      await api.idle();
      assert.equal(api.lastRun()?.view?.outcome, 'cancelled');
      assert.match(api.lastRunLines().join('\n'), /▸ Cancelled: job \d+ on embedded runner is cancelled\./);
      await waitFor('the program to be gone', () => !markedAlive(mark), 15_000);
    } finally {
      cts.dispose();
      api.preApproveTools(false);
    }
  });

  it("the leaderboards tool lists the embedded runner's leaderboards", async () => {
    const answer = await invoke('kernelRunner_listLeaderboards', {});
    assert.equal(answer.service, 'embedded runner');
    assert.ok((answer.leaderboards as Array<{ name: string }>).some((b) => b.name === 'vectoradd_py'));
  });

  it('a tool error is a clear error: no stored run of that id', async () => {
    await assert.rejects(invoke('kernelRunner_profileDigest', { run_id: 'nosuchrun' }), /no stored run "nosuchrun"/);
  });

  it('the MCP server definition provider is registered where the host has the API; its command line serves MCP', async () => {
    // off in the test window's settings (run.mjs), read at activation: on, and a reload
    assert.equal(api.mcpServerRegistered(), false, 'kernelRunner.mcpServer.enable false: not registered');
    await setting('mcpServer.enable', true);
    try {
      api = await api.reactivate();
      const host = vscode.lm as unknown as { registerMcpServerDefinitionProvider?: unknown };
      assert.equal(api.mcpServerRegistered(), typeof host.registerMcpServerDefinitionProvider === 'function');
      assert.equal(api.mcpServerRegistered(), true, 'code-server 4.139 (VS Code 1.139) has it');
    } finally {
      await setting('mcpServer.enable', undefined);
      api = await api.reactivate();
    }

    // what VS Code starts: initialize, then tools/list (newline-delimited JSON-RPC on stdio)
    const { command, args, env } = api.mcpCommandLine();
    assert.deepEqual(args.slice(1), ['mcp']);
    const server = await startMcp({ command, args, env });
    try {
      assert.ok(server.serverName, 'initialized');
      const list = await server.request<{ tools: Array<{ name: string }> }>('tools/list', {});
      const names = list.tools.map((t) => t.name);
      for (const name of ['submit', 'get_run', 'list_leaderboards', 'profile_digest', 'compare'])
        assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
    } finally {
      server.kill();
    }
  });

  it('VS Code starts the MCP server with the stored runner token in its environment only: not in its arguments, settings, files or output', async () => {
    const secret = 'kr-mcp-definition-token-41c7e09b';
    const dataDir = mkdtempSync(join(tmpdir(), 'kr-mcp-serve-'));
    const tokenFile = join(dataDir, 'given-token');
    writeFileSync(tokenFile, `${secret}\n`, { mode: 0o600 });
    const serve = spawn(
      process.execPath,
      [join(repoRoot, 'dist/cli.cjs'), 'serve', '--port', '0', '--token-file', tokenFile, '--data-dir', dataDir],
      { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let served = '';
    serve.stdout.on('data', (d: Buffer) => (served += d.toString()));
    serve.stderr.on('data', (d: Buffer) => (served += d.toString()));
    // VS Code's MCP support is off while the harness disables AI features: on for this test
    const chat = () => vscode.workspace.getConfiguration('chat');
    // the harness's user settings turn AI features off for every other suite and UI check: put back what was there
    const aiOff = chat().inspect<boolean>('disableAIFeatures')?.globalValue;
    let url = '';
    const started = () => mcpServerProcesses(url);
    try {
      url = await waitFor('serve to listen', () => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(served)?.[1]);
      await setting('server', url);
      await api.storeToken(url, secret);
      await setting('mcpServer.enable', true);
      api = await api.reactivate();

      // what the provider lists holds no token; resolving it (what VS Code does to start it) adds it to the env only
      const definitions = await api.mcpDefinitions();
      assert.equal(definitions.length, 1);
      const { provided, resolved } = definitions[0]!;
      assert.deepEqual(provided.args.slice(1), ['mcp', '--server', url]);
      assert.ok(!JSON.stringify(provided).includes(secret), 'the listed definition holds no token');
      assert.deepEqual(resolved.args, provided.args, 'the command line is the same');
      assert.equal(resolved.env.KERNEL_RUNNER_TOKEN, secret);
      // our token never goes to GPU MODE (the server sends popcorn-cli's cli_id there), even one stored for its URL
      const gpumode = 'https://gpumode.example.invalid';
      await setting('server', gpumode);
      await api.storeToken(gpumode, secret);
      const [toGpuMode] = await api.mcpDefinitions();
      assert.deepEqual(toGpuMode!.provided.args.slice(1), ['mcp', '--server', gpumode]);
      assert.deepEqual(toGpuMode!.resolved, toGpuMode!.provided);
      await setting('server', url);

      // VS Code starts it (through the provider's resolve) and lists its tools: the MCP view's Start Server command
      // (workbench's own, not API: '*' starts every server it knows, here only ours). The command starts the servers
      // the workbench knows when it runs: the definitions our provider gave after the reactivation reach it
      // asynchronously (on a busy machine after the command has run and started nothing, and with
      // waitForLiveTools a start may wait for ever), so it is given again until the tools are there; a start of a
      // server already starting or running does nothing.
      await chat().update('disableAIFeatures', false, vscode.ConfigurationTarget.Global);
      const ourTools = () => vscode.lm.tools.map((t) => t.name).filter((n) => n.startsWith('mcp_kernel-runner_'));
      let starting: Thenable<unknown> | undefined;
      let starts = 0;
      await waitFor(
        "the MCP server's tools",
        () => {
          if (ourTools().length >= 6) return true;
          if (!starting) {
            starts++;
            starting = vscode.commands
              .executeCommand('workbench.mcp.startServer', '*', { autoTrustChanges: true })
              .then(
                () => (starting = undefined),
                () => (starting = undefined),
              );
          }
          return undefined;
        },
        60_000,
      ).catch((err: Error) => {
        const tools = vscode.lm.tools.map((t) => t.name).join(', ');
        const procs = JSON.stringify(started().map((p) => p.cmdline));
        throw new Error(`${err.message} (${starts} starts); tools: ${tools}; MCP server processes: ${procs}`);
      });
      const mcpTools = ourTools();
      assert.deepEqual(mcpTools.sort(), [
        'mcp_kernel-runner_compare',
        'mcp_kernel-runner_get_run',
        'mcp_kernel-runner_isa',
        'mcp_kernel-runner_list_leaderboards',
        'mcp_kernel-runner_profile_digest',
        'mcp_kernel-runner_submit',
      ]);
      const running = started();
      assert.equal(running.length, 1, 'VS Code started one server for the definition');
      assert.ok(!running[0]!.cmdline.join(' ').includes(secret), 'not on its command line');
      assert.ok(running[0]!.environ.includes(`KERNEL_RUNNER_TOKEN=${secret}`), 'in its environment');

      // that command line and environment authenticate; without the environment the runner refuses
      const withToken = await callOnce(resolved, 'list_leaderboards');
      assert.equal(withToken.isError, false, withToken.text);
      assert.match(withToken.text, /vectoradd_py/);
      assert.ok(!withToken.text.includes(secret));
      const withoutToken = await callOnce(provided, 'list_leaderboards');
      assert.equal(withoutToken.isError, true, withoutToken.text);
      assert.match(withoutToken.text, /401|token/i);

      // nowhere else: the settings VS Code holds, our output channel, any file of the test's VS Code (user data and
      // settings, server data and logs, extensions, the workspace's .vscode)
      assert.ok(!JSON.stringify(vscode.workspace.getConfiguration('kernelRunner')).includes(secret));
      assert.ok(!api.channelLines().some((l) => l.includes(secret)));
      const vscodeHome = join(process.env.HOME ?? '/nonexistent', '..');
      assert.match(vscodeHome, /kr-vscode-/, "the harness's throwaway VS Code folder");
      assert.deepEqual(filesContaining(vscodeHome, secret), []);
      assert.ok(
        filesContaining(vscodeHome, url).some((f) => f.endsWith(join('.vscode', 'settings.json'))),
        'the search reads the settings: the URL is there',
      );
    } finally {
      // whatever failed above, the next suites get their settings and a working extension back
      try {
        await chat().update('disableAIFeatures', aiOff, vscode.ConfigurationTarget.Global);
        await setting('server', undefined);
        await setting('mcpServer.enable', undefined);
      } finally {
        api = await api.reactivate();
      }
      try {
        // the provider gone, VS Code stops its server
        if (url) await waitFor('the MCP server to stop', () => started().length === 0);
      } finally {
        serve.kill();
      }
    }
  }).timeout(240_000); // its own waits (serve 30 s, the tools 60 s, the stop 30 s) end before mocha gives up on it
});

/** Processes running `cli.cjs mcp --server url` (VS Code's start of our definition), with their environment. */
function mcpServerProcesses(url: string): Array<{ cmdline: string[]; environ: string[] }> {
  const found: Array<{ cmdline: string[]; environ: string[] }> = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (!(cmdline.some((c) => c.endsWith('cli.cjs')) && cmdline.includes('mcp') && cmdline.includes(url))) continue;
      found.push({ cmdline, environ: readFileSync(`/proc/${name}/environ`, 'utf8').split('\0') });
    } catch {
      // gone
    }
  }
  return found;
}

/** Every file under `dir` whose bytes contain `text`. */
function filesContaining(dir: string, text: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const f = join(dir, e.name);
    if (e.isDirectory()) filesContaining(f, text, out);
    else if (e.isFile()) {
      let bytes: Buffer;
      try {
        bytes = readFileSync(f);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // removed while we looked
        throw err;
      }
      if (bytes.includes(text)) out.push(f);
    }
  }
  return out;
}

/**
 * What VS Code starts for a definition: its command line with its env (and none of ours), spoken to in
 * newline-delimited JSON-RPC on stdio, initialized.
 */
async function startMcp(d: { command: string; args: string[]; env: Record<string, string | number | null> }): Promise<{
  serverName: string | undefined;
  request<T>(method: string, params: object): Promise<T>;
  kill(): void;
}> {
  const env: Record<string, string> = { ...(process.env as Record<string, string>) };
  delete env.KERNEL_RUNNER_TOKEN;
  for (const [k, v] of Object.entries(d.env)) if (v !== null) env[k] = String(v);
  const child = spawn(d.command, d.args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const replies = new Map<number, (v: { result: unknown }) => void>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const msg = JSON.parse(line) as { id?: number; result: unknown };
    if (msg.id !== undefined) replies.get(msg.id)?.(msg);
  });
  let nextId = 1;
  const request = <T>(method: string, params: object) =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      replies.set(id, (msg) => resolve(msg.result as T));
      child.once('exit', (code) => reject(new Error(`the MCP server exited (${code})`)));
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  try {
    const init = await request<{ serverInfo?: { name: string } }>('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'kernel-runner-test', version: '0' },
    });
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    return { serverName: init.serverInfo?.name, request, kill: () => child.kill() };
  } catch (err) {
    child.kill();
    throw err;
  }
}

/** Starts a definition as VS Code would, calls one tool without arguments, and stops it. */
async function callOnce(
  d: { command: string; args: string[]; env: Record<string, string | number | null> },
  tool: string,
): Promise<{ isError: boolean; text: string }> {
  const server = await startMcp(d);
  try {
    const r = await server.request<{ isError?: boolean; content: Array<{ text: string }> }>('tools/call', {
      name: tool,
      arguments: {},
    });
    return { isError: r.isError === true, text: r.content.map((c) => c.text).join('') };
  } finally {
    server.kill();
  }
}
