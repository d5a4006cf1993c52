// Runs the extension's mocha suites inside a real VS Code (code-server's bundled VS Code server, Node 24), driven
// by Debian's Chromium through playwright-core, then the UI checks (test/vscode/ui/*.mjs) on the same server, then
// the packed .vsix as a person installs it (test/vscode/installed.mjs: its own server, no extensionDevelopmentPath;
// left out by --no-installed, and by a --grep that does not match "installed").
// Tools come from scripts/setup-vscode-test.sh (see shared docs: real-vscode-testing). Under CI=true missing
// tools are a failure; elsewhere the run is skipped with a loud message.
//
//   node test/vscode/run.mjs [--grep TEXT] [--no-ui] [--only-ui] [--no-installed] [--only-installed] [--keep]
import { spawn, spawnSync } from 'node:child_process';
import { buildSuites } from './build-suites.mjs';
import { startVscodeServer, writeSettings } from './server.mjs';
import { findTools } from './tools.mjs';
import {
  cpSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const known = ['--grep', '--no-ui', '--only-ui', '--no-installed', '--only-installed', '--keep'];
const unknown = args.filter((a, i) => a.startsWith('-') && !known.includes(a) && args[i - 1] !== '--grep');
if (unknown.length) {
  const help = unknown.every((a) => a === '--help' || a === '-h');
  (help ? console.log : console.error)(
    'usage: node test/vscode/run.mjs [--grep TEXT] [--no-ui] [--only-ui] [--no-installed] [--only-installed] [--keep]',
  );
  process.exit(help ? 0 : 2);
}
const ci = process.env.CI === 'true' || process.env.CI === '1';
const installedToo = !flag('--no-installed') && (!option('--grep') || new RegExp(option('--grep')).test('installed'));
/** The .vsix installed and used as a person would (test/vscode/installed.mjs); whether it passed. */
function runInstalled() {
  const r = spawnSync(
    process.execPath,
    [join(root, 'test/vscode/installed.mjs'), ...(flag('--keep') ? ['--keep'] : [])],
    {
      stdio: 'inherit',
    },
  );
  return r.status === 0;
}
if (flag('--only-installed')) process.exit(runInstalled() ? 0 : 1);
const outputDir = join(root, '.test-output');
const started = Date.now();

function say(msg) {
  console.log(`[vscode-tests] ${msg}`);
}

const { tools, missing, toolsDir } = findTools();
if (missing.length) {
  const msg = `real VS Code test tools missing (${missing.join(', ')}; looked in ${toolsDir}). Install them with: bash scripts/setup-vscode-test.sh`;
  if (ci) {
    console.error(`[vscode-tests] FAIL: ${msg}`);
    process.exit(1);
  }
  console.log('\n' + '!'.repeat(100));
  console.log(`[vscode-tests] SKIPPED: ${msg}`);
  console.log('!'.repeat(100) + '\n');
  process.exit(0);
}

// 1. Build the extension and the suites.
const suiteIndex = await buildSuites().catch((err) => {
  console.error(`[vscode-tests] ${err.message}`);
  process.exit(1);
});

// 2. A throwaway home for VS Code: user data, server data, extensions, XDG dirs and a workspace copy.
const tmp = mkdtempSync(join(tmpdir(), 'kr-vscode-'));
const dirs = {
  userData: join(tmp, 'user-data'),
  serverData: join(tmp, 'server-data'),
  extensions: join(tmp, 'extensions'),
  xdgConfig: join(tmp, 'xdg-config'),
  xdgData: join(tmp, 'xdg-data'),
  workspace: join(tmp, 'workspace'),
  home: join(tmp, 'home'),
};
for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
cpSync(join(root, 'test/vscode/workspace'), dirs.workspace, { recursive: true });
// The example problem's submission, as a person would have it open in their folder.
cpSync(join(root, 'examples/problems/vectoradd_py/submission.py'), join(dirs.workspace, 'submission.py'));
// No check opens this file: the UI checks' Quick Open finds it only through a live extension host's file search
// (files once opened are found in the editor history too).
writeFileSync(join(dirs.workspace, 'extension-host-probe.txt'), 'found by file search\n');
// Built-in extensions that every window's extension host would otherwise start, none of which a check uses: git and
// github (activated on `*` even with git.enabled off), the JSON and TypeScript language features (a language server
// each window, for the settings files), npm, auto-attach and the extension and configuration editing helpers. The
// server leaves them out (VSCODE_SKIP_BUILTIN_EXTENSIONS below), so each window's extension host is ready sooner and
// the two cores are not busy with them while the checks run. (Those with a browser build that start on their own,
// git-base, emmet and merge-conflict, stay: left out of the server, the workbench would try them in its web worker.)
const unusedBuiltins = [
  'vscode.git',
  'vscode.github',
  'vscode.json-language-features',
  'vscode.typescript-language-features',
  'vscode.configuration-editing',
  'vscode.extension-editing',
  'vscode.npm',
  'vscode.debug-auto-launch',
];
// The suites override these per test with workspace-level values.
writeSettings(dirs.userData, root, { 'workbench.tips.enabled': false, 'window.title': 'kernel-runner-tests' });
mkdirSync(outputDir, { recursive: true });
// Screenshots of failures from an earlier run would read as failures of this one.
for (const f of readdirSync(outputDir)) if (f.startsWith('FAILED-')) rmSync(join(outputDir, f), { force: true });

// The GPU MODE contract server for the UI checks (the mocha suites start their own): its URL is GPU MODE's for the
// extension host (POPCORN_API_URL, as popcorn-cli reads it), and the throwaway home gets a popcorn config.
let contract;
if (!flag('--no-ui')) {
  contract = await startContract().catch((err) => {
    console.error(`[vscode-tests] ${err.message}`);
    process.exit(1);
  });
}

// 3. The VS Code server in its own process group, so that one kill ends it and its extension hosts.
const resultsFile = join(tmp, 'mocha-results.json');
const serverLog = join(outputDir, 'vscode-server.log');
const serverEnv = {
  ...process.env,
  HOME: dirs.home,
  XDG_CONFIG_HOME: dirs.xdgConfig,
  XDG_DATA_HOME: dirs.xdgData,
  KR_TEST_RESULTS: resultsFile,
  KR_REPO_ROOT: root,
  KR_TEST_OUTPUT: outputDir,
  KR_TEST_GREP: option('--grep') ?? '',
  KR_TEST_WORKSPACE: dirs.workspace,
  // GPU MODE's background submissions are polled every 250 ms instead of popcorn-cli's 5 s (the variable a person
  // can set too; the mocha suites set their own interval through the test API).
  KERNEL_RUNNER_POLL_MS: '250',
  // (see unusedBuiltins; VS Code's own switch, read by the server when it lists its built-in extensions)
  VSCODE_SKIP_BUILTIN_EXTENSIONS: unusedBuiltins.join(','),
  ...(contract ? { POPCORN_API_URL: contract.url } : {}),
};
delete serverEnv.ELECTRON_RUN_AS_NODE;
const server = await startVscodeServer({
  tools,
  dirs,
  cwd: tmp,
  env: serverEnv,
  logFile: serverLog,
  extraArgs: ['--enable-smoke-test-driver'],
});
const { port } = server;

let browser;
async function cleanup() {
  try {
    await browser?.close();
  } catch {
    /* already gone */
  }
  contract?.child.kill('SIGTERM');
  // Anything the extension host started in its own group (runner jobs) was reported by the suites; stop() sweeps the
  // server's group once more in case a child outlived its parent.
  await server.stop();
  if (!flag('--keep')) rmSync(tmp, { recursive: true, force: true });
  else say(`kept ${tmp}`);
}
// A stray promise in a UI check must not kill this process before it has stopped the server.
process.on('unhandledRejection', (err) => console.error(`[vscode-tests] unhandled rejection: ${err?.message ?? err}`));
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'])
  process.on(sig, () => {
    cleanup().finally(() => process.exit(130));
  });
// Output piped into a reader that went away (`| head`): stop the server, not only this process (it is in a group
// of its own and would outlive us).
for (const stream of [process.stdout, process.stderr])
  stream.on('error', () => {
    cleanup().finally(() => process.exit(1));
  });

const remote = (p) => `vscode-remote://127.0.0.1:${port}${p}`;
function workbenchUrl(extra = []) {
  const payload = [['extensionDevelopmentPath', remote(root)], ...extra];
  return `http://127.0.0.1:${port}/?folder=${encodeURIComponent(dirs.workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

let exitCode = 0;
let passed = 0;
let failed = 0;
try {
  await server.waitUntilUp();
  say(`VS Code server up on port ${port} after ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({
    executablePath: tools.chromium,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });

  // 4. The mocha suites inside the extension host.
  if (!flag('--only-ui')) {
    const t0 = Date.now();
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const hostLog = createWriteStream(join(outputDir, 'vscode-suite-console.log'));
    await page.exposeFunction('codeAutomationLog', (type, logArgs) => {
      hostLog.write(`[${type}] ${Array.isArray(logArgs) ? logArgs.map(String).join(' ') : String(logArgs)}\n`);
    });
    const exited = new Promise((resolve) => {
      page.exposeFunction('codeAutomationExit', (code) => resolve(code));
    });
    await page.goto(workbenchUrl([['extensionTestsPath', remote(suiteIndex)]]));
    const timeoutMs = Number(process.env.KR_VSCODE_TIMEOUT_MS || 600_000);
    const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('timeout'), timeoutMs))]);
    await page.screenshot({ path: join(outputDir, 'vscode-suite-end.png') }).catch(() => {});
    hostLog.end();
    if (code === 'timeout') {
      console.error(`[vscode-tests] the suites did not finish within ${timeoutMs / 1000} s`);
      exitCode = 1;
    } else if (code !== 0) exitCode = 1;
    if (existsSync(resultsFile)) {
      const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
      for (const t of results.tests) {
        const mark = t.state === 'passed' ? 'ok  ' : t.state === 'failed' ? 'FAIL' : 'skip';
        console.log(`  ${mark} ${t.fullTitle} (${t.durationMs ?? 0} ms)`);
        if (t.error) console.log('       ' + t.error.split('\n').join('\n       '));
      }
      passed += results.passed;
      failed += results.failed;
      if (results.passed + results.failed === 0) {
        console.error('[vscode-tests] no mocha test ran');
        exitCode = 1;
      }
    } else {
      console.error(
        `[vscode-tests] the extension host wrote no results (exit ${code}); see ${join(outputDir, 'vscode-suite-console.log')} and ${serverLog}`,
      );
      exitCode = 1;
    }
    say(`extension-host suites: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const metricsFile = join(outputDir, 'extension-metrics.json');
    if (existsSync(metricsFile)) say(`activation (ms): ${readFileSync(metricsFile, 'utf8').trim()}`);
    await page.close();
  }

  // 5. UI checks as a person would do them: palette commands, webview frames, screenshots.
  if (!flag('--no-ui')) {
    const uiDir = join(root, 'test/vscode/ui');
    const files = existsSync(uiDir)
      ? readdirSync(uiDir)
          .filter((f) => f.endsWith('.ui.mjs'))
          .sort()
      : [];
    // a regular expression, as mocha's --grep for the suites ("e-gpumode|j-agent" selects both)
    const grep = option('--grep') ? new RegExp(option('--grep')) : undefined;
    const { steps } = await import(join(uiDir, 'workbench.mjs'));
    for (const f of files) {
      const mod = await import(join(uiDir, f));
      for (const [name, fn] of Object.entries(mod.tests ?? {})) {
        const title = `${f.replace(/\.ui\.mjs$/, '')}: ${name}`;
        if (grep && !grep.test(title)) continue;
        const t0 = Date.now();
        steps.length = 0;
        const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
        const page = await context.newPage();
        try {
          await fn({
            page,
            workbenchUrl,
            outputDir,
            root,
            workspace: dirs.workspace,
            home: dirs.home,
            userData: dirs.userData,
            extensionsDir: dirs.extensions,
            contract,
            say,
          });
          passed++;
          console.log(`  ok   ${title} (${Date.now() - t0} ms)`);
          console.log(`       steps: ${steps.join(', ')}`);
        } catch (err) {
          failed++;
          exitCode = 1;
          const shot = join(outputDir, `FAILED-${title.replace(/[^\w.-]+/g, '_')}.png`);
          await page.screenshot({ path: shot }).catch(() => {});
          console.log(
            `  FAIL ${title} (${Date.now() - t0} ms)\n       ${String(err?.stack ?? err)
              .split('\n')
              .join('\n       ')}\n       screenshot: ${shot}\n       steps: ${steps.join(', ')}`,
          );
        } finally {
          await context.close();
        }
      }
    }
  }
} catch (err) {
  console.error(`[vscode-tests] ${err?.stack ?? err}`);
  exitCode = 1;
} finally {
  await cleanup();
}
// after the first server is gone (its memory back): the packed extension, installed
if (installedToo) {
  if (runInstalled()) passed++;
  else {
    failed++;
    exitCode = 1;
  }
}
say(`total ${((Date.now() - started) / 1000).toFixed(1)} s; screenshots and logs in ${outputDir}`);
console.log(`vscode: ${passed} passed, ${failed} failed`);
process.exit(exitCode || (failed ? 1 : 0));

/** test/vscode/contractProcess.ts under tsx: resolves with its URL, a registered cli_id and `release()` (lets the
 * `contract: hold` submissions finish) once it listens. */
function startContract() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'test/vscode/contractProcess.ts')], {
      cwd: root,
      env: { ...process.env, KR_CONTRACT_HEARTBEAT_MS: '1000' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let err = '';
    let buf = '';
    const answers = new Map();
    let nextId = 1;
    const ask = (cmd) =>
      new Promise((done, fail) => {
        const id = nextId++;
        answers.set(id, (msg) => (msg.error ? fail(new Error(msg.error)) : done(msg)));
        child.stdin.write(`${JSON.stringify({ ...cmd, id })}\n`);
      });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.stdout.on('data', (d) => {
      buf += d;
      const lines = buf.split('\n');
      buf = lines.pop();
      for (const line of lines) {
        if (!line.trim()) continue;
        const msg = JSON.parse(line);
        if (msg.ready) {
          resolve({
            url: msg.url,
            aliceId: msg.aliceId,
            child,
            release: async () => (await ask({ cmd: 'release' })).released,
          });
        } else if (answers.has(msg.id)) {
          answers.get(msg.id)(msg);
          answers.delete(msg.id);
        }
      }
    });
    child.once('exit', (code) => reject(new Error(`the GPU MODE contract server exited (${code}): ${err}`)));
    setTimeout(() => reject(new Error(`the GPU MODE contract server did not start: ${err}`)), 30_000);
  });
}
