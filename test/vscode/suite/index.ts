// Entry that VS Code's extension host calls (extensionTestsPath): runs every compiled *.test.js next to it with
// mocha and writes a JSON summary to $KR_TEST_RESULTS for test/vscode/run.mjs (same file for test-electron).
import Mocha from 'mocha';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

interface TestRecord {
  fullTitle: string;
  state: 'passed' | 'failed' | 'pending';
  durationMs?: number;
  error?: string;
}

export function run(): Promise<void> {
  const grep = process.env.KR_TEST_GREP;
  const mocha = new Mocha({ ui: 'bdd', timeout: 90_000, color: false, reporter: 'spec', ...(grep ? { grep } : {}) });
  const dir = __dirname;
  for (const f of readdirSync(dir)
    .filter((n) => n.endsWith('.test.js'))
    .sort())
    mocha.addFile(join(dir, f));

  const records: TestRecord[] = [];
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      const out = process.env.KR_TEST_RESULTS;
      const summary = {
        passed: records.filter((r) => r.state === 'passed').length,
        failed: records.filter((r) => r.state === 'failed').length,
        pending: records.filter((r) => r.state === 'pending').length,
        tests: records,
      };
      if (out) writeFileSync(out, JSON.stringify(summary, null, 2));
      if (failures > 0) reject(new Error(`${failures} test(s) failed`));
      else resolve();
    });
    runner.on('pass', (t) => records.push({ fullTitle: t.fullTitle(), state: 'passed', durationMs: t.duration }));
    runner.on('fail', (t, err: Error) =>
      records.push({
        fullTitle: t.fullTitle(),
        state: 'failed',
        durationMs: t.duration,
        error: err.stack ?? String(err),
      }),
    );
    runner.on('pending', (t) => records.push({ fullTitle: t.fullTitle(), state: 'pending' }));
  });
}
