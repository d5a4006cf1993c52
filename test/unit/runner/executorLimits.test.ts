// Limits of one job's child process that protect the runner itself from what a submission writes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { runProcess } from '../../../src/runner/executor';

test('POPCORN_FD flood: kept up to the cap in whole lines, the rest counted, the runner unharmed', async () => {
  // 4 MiB of key/value lines (each line 64 KiB) into fd 3, against a 1 MiB cap
  const script = `
    const fs = require('node:fs');
    fs.writeSync(3, 'check: pass\\n');
    const line = 'k: ' + 'x'.repeat(65536 - 4) + '\\n';
    for (let i = 0; i < 64; i++) fs.writeSync(3, line);
  `;
  const cap = 1024 * 1024;
  const out = await runProcess({
    command: process.execPath,
    args: ['-e', script],
    cwd: tmpdir(),
    env: { PATH: process.env.PATH },
    timeoutMs: 60_000,
    graceMs: 1000,
    popcornFd: true,
    capBytes: 4096,
    popcornCapChars: cap,
  });
  assert.equal(out.exitCode, 0);
  assert.ok(out.popcorn.length <= cap, `kept ${out.popcorn.length} characters, cap ${cap}`);
  assert.ok(out.popcorn.startsWith('check: pass\n'));
  assert.ok(out.popcorn.endsWith('\n'), 'only whole lines are kept');
  assert.equal(out.popcorn.length + out.popcornOmitted, 'check: pass\n'.length + 64 * 65536);
});
