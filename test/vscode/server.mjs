/* global fetch */
// The VS Code server of code-server for run.mjs and installed.mjs: its settings, and the server on a free loopback
// port, without a connection token, in its own process group (so that one kill ends it and its extension hosts), its
// output in a log file.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

/**
 * User settings (`extra` over a quiet window: no startup editor, telemetry, updates, AI features, trust prompt or git)
 * and "remote machine" settings (the server's user-data-dir/Machine): the embedded runner is told its GPU is an MI300
 * and finds the clearly named test stand-in for rocprofv3 (`root`/test/bin) first on its PATH.
 */
export function writeSettings(userData, root, extra = {}) {
  mkdirSync(join(userData, 'User'), { recursive: true });
  mkdirSync(join(userData, 'Machine'), { recursive: true });
  const settings = {
    'workbench.startupEditor': 'none',
    'telemetry.telemetryLevel': 'off',
    'extensions.autoUpdate': false,
    'extensions.autoCheckUpdates': false,
    'update.mode': 'none',
    'chat.disableAIFeatures': true,
    // Off in the test window (lmTools.test.ts turns it on): the registered MCP server definition leaves the Output
    // panel focused, which the timing lens suite's revert of the active editor does not expect.
    'kernelRunner.mcpServer.enable': false,
    'security.workspace.trust.enabled': false,
    'git.enabled': false,
    ...extra,
  };
  writeFileSync(join(userData, 'User/settings.json'), JSON.stringify(settings, null, 2));
  writeFileSync(
    join(userData, 'Machine/settings.json'),
    JSON.stringify(
      { 'kernelRunner.embedded.gpuName': 'MI300', 'kernelRunner.embedded.path': [join(root, 'test/bin')] },
      null,
      2,
    ),
  );
}

/** A loopback port nothing listens on now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * Starts `tools.server` (under `tools.node24`) with the user data, server data and extensions folders of `dirs`,
 * `extraArgs` after the usual switches. Returns its port, its process, whether it has exited, a wait until it answers
 * and a stop.
 */
export async function startVscodeServer({ tools, dirs, cwd, env, logFile, extraArgs = [] }) {
  const port = await freePort();
  const child = spawn(
    tools.node24,
    [
      tools.server,
      ...['--host', '127.0.0.1', '--port', String(port), '--without-connection-token', '--accept-server-license-terms'],
      ...['--disable-telemetry', '--disable-workspace-trust', '--skip-welcome', '--skip-release-notes'],
      ...['--user-data-dir', dirs.userData, '--server-data-dir', dirs.serverData, '--extensions-dir', dirs.extensions],
      ...extraArgs,
    ],
    { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const log = createWriteStream(logFile);
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  let exited = false;
  const exit = once(child, 'exit').then(() => {
    exited = true;
  });
  const killGroup = (signal) => {
    try {
      process.kill(-child.pid, signal);
    } catch {
      /* gone */
    }
  };
  return {
    port,
    child,
    get exited() {
      return exited;
    },
    /** Until the workbench page answers 200; throws if the server exits first or 90 s pass. */
    async waitUntilUp() {
      const deadline = Date.now() + 90_000;
      while (Date.now() < deadline) {
        if (exited) throw new Error(`VS Code server exited early; see ${logFile}`);
        const up = await fetch(`http://127.0.0.1:${port}/`).then(
          (r) => r.status === 200,
          () => false,
        );
        if (up) return;
        await new Promise((r) => setTimeout(r, 250));
      }
      throw new Error(`VS Code server did not answer on port ${port} within 90 s; see ${logFile}`);
    },
    /** SIGTERM to its group, up to 5 s for it to exit, then SIGKILL to the group (a child that outlived it too). */
    async stop() {
      if (!exited) {
        killGroup('SIGTERM');
        let timer;
        await Promise.race([exit, new Promise((r) => (timer = setTimeout(r, 5000)))]);
        clearTimeout(timer);
      }
      killGroup('SIGKILL');
    },
  };
}
