// Second runner for the same mocha suites: @vscode/test-electron downloads a desktop VS Code (needs internet,
// which CI here does not have; CI uses test/vscode/run.mjs). `npm run test:electron`.
import { mkdtempSync, cpSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTests } from '@vscode/test-electron';
import { buildSuites, root } from './build-suites.mjs';

const extensionTestsPath = await buildSuites();
const workspace = mkdtempSync(join(tmpdir(), 'kr-electron-ws-'));
cpSync(join(root, 'test/vscode/workspace'), workspace, { recursive: true });
cpSync(join(root, 'examples/problems/vectoradd_py/submission.py'), join(workspace, 'submission.py'));
try {
  await runTests({
    extensionDevelopmentPath: root,
    extensionTestsPath,
    launchArgs: [
      workspace,
      '--disable-extensions',
      '--disable-workspace-trust',
      '--skip-welcome',
      '--skip-release-notes',
    ],
    extensionTestsEnv: {
      KR_REPO_ROOT: root,
      KR_TEST_WORKSPACE: workspace,
      KR_TEST_RESULTS: join(workspace, '.mocha-results.json'),
    },
  });
  console.log('[test-electron] suites passed');
} catch (err) {
  console.error(`[test-electron] ${err?.message ?? err}`);
  process.exitCode = 1;
} finally {
  rmSync(workspace, { recursive: true, force: true });
}
