// `kernel-runner mcp` driven by a client we did not write: the official MCP Inspector's CLI mode
// (`mcp-inspector --cli <command> --method tools/list | tools/call --tool-name X --tool-arg k=v`,
// @modelcontextprotocol/inspector 2.12.0), each call a real Inspector process that starts our built CLI as its stdio
// server. It prints the answer as JSON on stdout and exits 0, or 5 when the tool answered isError; both its streams
// are checked for the token.
// The Inspector needs Node >= 22.19, so it is not a dev dependency: scripts/setup-vscode-test.sh installs it with
// its Node 24 (tools.env's KR_MCP_INSPECTOR, KR_NODE24); without them this file skips outside CI and fails under CI.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cli, ensureBuilt, repoRoot, startServe, tempDir, vectoradd, type ServeProcess } from './submit/helpers';
import { MCP_TOOL_NAMES, mcpSession } from './mcpSession';
import { builtCodeObjects, skipCodeObjects } from '../support/codeObjects';
import { testTool } from '../support/testTools';

const fixtures = path.resolve(repoRoot, '../shared/fixtures/rocprof');
const pcSampling = path.join(fixtures, 'pc-sampling');
const rocpd = path.join(fixtures, 'batched_gemm__28_results.db');
const inspectorBin = testTool('KR_MCP_INSPECTOR');
const node24 = testTool('KR_NODE24');
const ci = process.env.CI === 'true' || process.env.CI === '1';
const skip =
  (!inspectorBin || !node24) && !ci
    ? 'MCP Inspector or Node 24 not installed (bash scripts/setup-vscode-test.sh)'
    : false;
/** The Inspector's exit code when the tool answered isError (its answer is still printed). */
const TOOL_IS_ERROR_EXIT = 5;

interface InspectorRun {
  code: number | null;
  stdout: string;
  stderr: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the Inspector's JSON answer, read by the assertions
  json: any;
}

/** `mcp-inspector --cli ...args`, in `cwd`. */
function inspector(args: string[], cwd: string): Promise<InspectorRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(node24!, [inspectorBin!, '--cli', ...args], {
      cwd,
      // its secret store (OAuth tokens; none here) in memory: no OS keychain on a test machine
      env: { ...process.env, NO_COLOR: '1', MCP_INSPECTOR_SECRET_STORE: 'memory' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t));
    child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
    child.on('error', reject);
    child.on('close', (code) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = null; // the assertions say what was printed
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}

/** The text of a tools/call answer, and that text as JSON when it is. */
function answer(run: InspectorRun): { isError: boolean; text: string; body: unknown } {
  const content = (run.json?.content ?? []) as Array<{ type: string; text: string }>;
  assert.ok(content.length > 0, `an answer with content: ${run.stdout}${run.stderr}`);
  const isError = run.json.isError === true;
  assert.equal(run.code, isError ? TOOL_IS_ERROR_EXIT : 0, `the Inspector exited ${run.code}: ${run.stderr}`);
  // the answer's text; resource links (traces, result files, disassembly) are content items of their own
  const text = content
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = null; // an error's text
  }
  return { isError, text, body };
}

const embedded = [process.execPath, cli, 'mcp'];
let work: string;

before(() => {
  if (skip) return;
  if (!inspectorBin || !node24)
    throw new Error('MCP Inspector missing under CI: run scripts/setup-vscode-test.sh first');
  ensureBuilt();
  work = tempDir('kr-mcp-inspector-');
});
after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

test(
  'the Inspector lists our six tools as the SDK client does, with their descriptions and input schemas',
  { skip },
  async () => {
    const run = await inspector([...embedded, '--method', 'tools/list'], work);
    assert.equal(run.code, 0, run.stderr);
    const tools = run.json.tools as Array<{
      name: string;
      description: string;
      inputSchema: {
        type: string;
        properties: Record<string, { type?: string; enum?: string[] }>;
        required?: string[];
      };
      outputSchema: { type: string };
      annotations: Record<'readOnlyHint' | 'destructiveHint' | 'openWorldHint', boolean>;
    }>;
    assert.deepEqual(tools.map((t) => t.name).sort(), MCP_TOOL_NAMES);
    for (const t of tools) {
      assert.ok(t.description.length > 80, `${t.name} tells an agent when to use it`);
      assert.equal(t.inputSchema.type, 'object', t.name);
      assert.equal(t.outputSchema.type, 'object', t.name);
      for (const hint of ['readOnlyHint', 'destructiveHint', 'openWorldHint'] as const)
        assert.equal(typeof t.annotations[hint], 'boolean', `${t.name}.${hint}`);
    }
    const submit = tools.find((t) => t.name === 'submit')!;
    assert.match(submit.description, /mode: test \(correctness; use after every edit\)/);
    assert.deepEqual(submit.inputSchema.properties.mode?.enum, ['test', 'benchmark', 'leaderboard', 'profile']);
    for (const field of ['file', 'code', 'file_name'])
      assert.equal(submit.inputSchema.properties[field]?.type, 'string');
    assert.deepEqual(tools.find((t) => t.name === 'get_run')!.inputSchema.required, ['run_id']);

    // the same listing the SDK's own client gets (test/integration/mcp.test.ts drives the loop with it)
    const s = await mcpSession(work, []);
    try {
      const viaSdk = (await s.client.listTools()).tools;
      const byName = (xs: Array<{ name: string }>) => [...xs].sort((a, b) => a.name.localeCompare(b.name));
      assert.deepEqual(byName(tools), JSON.parse(JSON.stringify(byName(viaSdk))));
    } finally {
      await s.close();
    }
  },
);

test(
  'the Inspector calls list_leaderboards and submits the example in test mode on the embedded runner',
  { skip },
  async () => {
    const boards = answer(
      await inspector([...embedded, '--method', 'tools/call', '--tool-name', 'list_leaderboards'], work),
    );
    assert.equal(boards.isError, false, boards.text);
    const listed = (boards.body as { leaderboards: Array<{ name: string; gpus: string[] }> }).leaderboards;
    assert.ok(
      listed.some((b) => b.name === 'vectoradd_py'),
      boards.text,
    );
    assert.ok(
      listed.some((b) => b.name === 'script'),
      boards.text,
    );

    const submission = path.join(vectoradd, 'submission.py');
    const tested = answer(
      await inspector(
        [
          ...embedded,
          '--method',
          'tools/call',
          '--tool-name',
          'submit',
          '--tool-arg',
          `file=${submission}`,
          '--tool-arg',
          'mode=test',
        ],
        work,
      ),
    );
    assert.equal(tested.isError, false, tested.text);
    const body = tested.body as {
      passed: boolean;
      mode: string;
      target: { leaderboard: string };
      evaluator: { tests: { passed: number; failed: number } };
      output_tail: string[];
      result_file: string;
    };
    assert.equal(body.passed, true, tested.text);
    assert.equal(body.mode, 'test');
    assert.equal(body.target.leaderboard, 'vectoradd_py');
    assert.deepEqual(body.evaluator.tests, { passed: 3, failed: 0, failures: [] });
    assert.ok(body.output_tail.includes('3/3 tests passed'), tested.text);
    // saved under the server's default --out, in the directory the Inspector started it in
    assert.ok(body.result_file.startsWith(path.join(work, 'kernel-runner-traces')), body.result_file);
    assert.ok(existsSync(body.result_file));
  },
);

test('bad arguments from the Inspector are a clear tool error, and nothing was run', { skip }, async () => {
  const call = (...toolArgs: string[]) =>
    inspector(
      [...embedded, '--method', 'tools/call', '--tool-name', 'submit', ...toolArgs.flatMap((a) => ['--tool-arg', a])],
      work,
    );
  const badMode = answer(await call(`file=${path.join(vectoradd, 'submission.py')}`, 'mode=fast'));
  assert.equal(badMode.isError, true, badMode.text);
  assert.match(badMode.text, /Invalid arguments for tool submit/);
  assert.match(badMode.text, /"test"\|"benchmark"\|"leaderboard"\|"profile" at mode/);

  const both = answer(await call(`file=${path.join(vectoradd, 'submission.py')}`, 'code=print(1)', 'mode=test'));
  assert.equal(both.isError, true, both.text);
  assert.match(both.text, /give file or code, not both/);

  const missing = answer(await call(`file=${path.join(work, 'no-such-kernel.py')}`, 'mode=test'));
  assert.equal(missing.isError, true, missing.text);
  assert.match(missing.text, /cannot read \S*no-such-kernel\.py: no such file or directory/);
  assert.doesNotMatch(missing.text, /run_id/, 'no run was made');

  // a tool we do not have: the Inspector finds it missing from our tools/list and says so, nothing is called
  const unknown = await inspector([...embedded, '--method', 'tools/call', '--tool-name', 'format_disk'], work);
  assert.equal(unknown.code, TOOL_IS_ERROR_EXIT, unknown.stderr);
  assert.equal(unknown.stdout, '');
  assert.deepEqual(JSON.parse(unknown.stderr.trim().split('\n').at(-1)!).error, {
    code: 'tool_not_found',
    message: "Tool 'format_disk' not found on server.",
  });
});

test(
  "the token the Inspector passes in the server's environment authenticates it and never appears in what it prints",
  { skip },
  async () => {
    const secret = 'kr-inspector-token-8d3f1a6c2b';
    let serve: ServeProcess | undefined;
    try {
      serve = await startServe(['--token', secret]);
      // the shape `setup-agent` writes to .mcp.json; the token is not in it
      const config = path.join(work, 'mcp.json');
      writeFileSync(
        config,
        JSON.stringify({
          mcpServers: { 'kernel-runner': { command: process.execPath, args: [cli, 'mcp', '--server', serve.url] } },
        }),
      );
      assert.ok(!readFileSync(config, 'utf8').includes(secret));
      // the Inspector gives a stdio server only the variables it is told (-e), as an editor's MCP client does
      const viaConfig = ['--config', config, '--server', 'kernel-runner', '--method', 'tools/call', '--tool-name'];
      const runs: InspectorRun[] = [];
      const call = async (env: string[], ...rest: string[]) => {
        const run = await inspector([...env, ...viaConfig, ...rest], work);
        runs.push(run);
        return answer(run);
      };
      const withToken = ['-e', `KERNEL_RUNNER_TOKEN=${secret}`];

      const boards = await call(withToken, 'list_leaderboards');
      assert.equal(boards.isError, false, boards.text);
      const echo = path.join(work, 'echo.py');
      writeFileSync(
        echo,
        `#!POPCORN leaderboard script\nprint("${secret}")\nprint("token", "${secret.slice(0, 9)}", "${secret.slice(9)}")\n`,
      );
      const echoed = await call(withToken, 'submit', '--tool-arg', `file=${echo}`, '--tool-arg', 'mode=test');
      assert.equal(echoed.isError, false, echoed.text);
      assert.match(echoed.text, /\[redacted\]/, 'the program printed the token: it was redacted');

      // the control: without the variable the same server is refused, so the variable is what authenticated it
      const without = await call([], 'list_leaderboards');
      assert.equal(without.isError, true, without.text);
      assert.match(without.text, /401|token/i);

      assert.equal(runs.length, 3);
      for (const run of runs) {
        assert.ok(!run.stdout.includes(secret), `the token is in the Inspector's stdout: ${run.stdout.slice(0, 300)}`);
        assert.ok(!run.stderr.includes(secret), `the token is in the Inspector's stderr: ${run.stderr.slice(0, 300)}`);
      }
    } finally {
      await serve?.stop();
    }
  },
);

test('the Inspector calls each other tool once: get_run, profile_digest (hot spots), compare', { skip }, async () => {
  const call = async (tool: string, ...toolArgs: string[]) =>
    inspector(
      [...embedded, '--method', 'tools/call', '--tool-name', tool, ...toolArgs.flatMap((a) => ['--tool-arg', a])],
      work,
    );
  // a new server: no runs yet, said as a tool error
  const run = answer(await call('get_run', 'run_id=r1'));
  assert.equal(run.isError, true, run.text);
  assert.match(run.text, /no run r1 in this session \(runs: none yet\)/);

  const digestRun = await call('profile_digest', `path=${pcSampling}`, 'max_bytes=4096');
  const digest = answer(digestRun);
  assert.equal(digest.isError, false, digest.text);
  assert.ok(Buffer.byteLength(digest.text) <= 4096);
  assert.deepEqual(digestRun.json.structuredContent, digest.body);
  const hot = (digest.body as { hotspots: { samples: number; kernels: Array<{ kernel?: string }> } }).hotspots;
  assert.equal(hot.samples, 197);
  assert.ok(hot.kernels[0]?.kernel, digest.text);

  const compared = answer(await call('compare', `a=${rocpd}`, `b=${rocpd}`));
  assert.equal(compared.isError, false, compared.text);
  const body = compared.body as { kind: string; digest: { baseline: { kernelTime: { verdict: string } } } };
  assert.equal(body.kind, 'profiles');
  assert.ok(['no-change', 'not-enough-runs'].includes(body.digest.baseline.kernelTime.verdict), compared.text);
});

test(
  'the Inspector calls isa on a real gfx942 code object within its budget',
  { skip: skip || skipCodeObjects() },
  async () => {
    const object = builtCodeObjects().hipObject;
    const run = await inspector(
      [
        ...embedded,
        '--method',
        'tools/call',
        '--tool-name',
        'isa',
        '--tool-arg',
        `path=${object}`,
        '--tool-arg',
        'max_bytes=1024',
      ],
      work,
    );
    const isa = answer(run);
    assert.equal(isa.isError, false, isa.text);
    assert.ok(Buffer.byteLength(isa.text) <= 1024, isa.text);
    const names = (
      isa.body as { codeObjects: Array<{ kernels: Array<{ name: string }> }> }
    ).codeObjects[0]!.kernels.map((k) => k.name);
    assert.ok(
      names.some((n) => /reduce_shared/.test(n) && !n.startsWith('_Z')),
      names.join(', '),
    );
  },
);
