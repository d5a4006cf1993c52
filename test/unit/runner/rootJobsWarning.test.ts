// Jobs as root: where the job user cannot run python3 (a launcher under a folder closed to it, as pyenv's shims
// under /root), a root runner's jobs run as root in their namespace, and `serve` and `kernel-runner mcp` say so at
// start in one line with the fix. Not root: jobs never run as root, and nothing is said.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { rootJobsWarningNow } from '../../../src/runner/sandbox';

const root = process.getuid?.() === 0;
const systemPython = ['/usr/bin/python3', '/usr/local/bin/python3'].find((p) => existsSync(p)) ?? '/usr/bin/python3';

/** A PATH folder whose python3 is a launcher in a folder only this user may enter (`closed`), or a link in an open one. */
function pythonBin(closed: boolean): { bin: string; outer: string } {
  const outer = mkdtempSync(path.join(tmpdir(), 'kr-root-warning-'));
  const bin = path.join(outer, 'bin');
  mkdirSync(bin);
  if (closed) writeFileSync(path.join(bin, 'python3'), `#!/bin/sh\nexec ${systemPython} "$@"\n`, { mode: 0o755 });
  else symlinkSync(systemPython, path.join(bin, 'python3'));
  chmodSync(outer, closed ? 0o700 : 0o755);
  return { bin, outer };
}

test('a python3 the job user cannot run: one line saying jobs run as root, and the fix (root only)', (t) => {
  const { bin, outer } = pythonBin(true);
  t.after(() => rmSync(outer, { recursive: true, force: true }));
  const line = rootJobsWarningNow({ PATH: bin });
  if (!root) {
    assert.equal(line, null, 'a runner that is not root never runs jobs as root');
    return;
  }
  assert.ok(line, 'root, with a python3 the job user cannot run: a warning');
  assert.doesNotMatch(line, /\n/, 'one line');
  assert.match(line, /jobs run AS ROOT in their namespace/);
  assert.ok(line.includes(`cannot run ${path.join(bin, 'python3')} (${outer} is closed to it)`), line);
  assert.match(
    line,
    /useradd --system --no-create-home --shell \/usr\/sbin\/nologin kernel-runner-job/,
    'which user to create',
  );
  assert.ok(line.includes(`install python3 and the toolchain outside ${outer}`), 'where to install the toolchain');
});

test('a python3 the job user can run, or none on PATH: nothing to say', (t) => {
  const { bin, outer } = pythonBin(false);
  t.after(() => rmSync(outer, { recursive: true, force: true }));
  assert.equal(rootJobsWarningNow({ PATH: bin }), null);
  assert.equal(rootJobsWarningNow({ PATH: outer }), null, 'no python3 on PATH: startRunner says what is missing');
});
