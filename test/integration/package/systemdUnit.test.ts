// deploy/kernel-runner.service as systemd reads it: `systemd-analyze verify` (unknown keys, bad values, a command
// that is not there), offline, under a root of its own that holds systemd's units, the unit and a `kernel-runner`
// on PATH as npm installs it. Without systemd-analyze this file skips outside CI and fails under CI=true (.ci/run
// installs systemd). Serving with the unit's own command line is tested on the packed package (npmPack.test.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { findOnPath } from '../../../src/runner/profilers';
import { repoRoot, tempDir } from '../submit/helpers';
import { unitSettings } from './unitFile';

const unitFile = path.join(repoRoot, 'deploy/kernel-runner.service');
const analyze = findOnPath('systemd-analyze', process.env.PATH);
const systemUnits = ['/usr/lib/systemd/system', '/lib/systemd/system'].find((d) => existsSync(d));
const ci = process.env.CI === 'true' || process.env.CI === '1';
const skip =
  (!analyze || !systemUnits) && !ci ? 'systemd-analyze is not installed (Debian: apt-get install systemd)' : false;

describe('deploy/kernel-runner.service', { skip }, () => {
  let root: string;
  const installed = () => path.join(root, 'etc/systemd/system/kernel-runner.service');
  const verify = () =>
    spawnSync(analyze!, [`--root=${root}`, 'verify', installed()], { encoding: 'utf8', timeout: 60_000 });

  before(() => {
    assert.ok(analyze && systemUnits, 'systemd-analyze and its units are installed (.ci/run installs systemd)');
    root = tempDir('kr-systemd-');
    cpSync(systemUnits, path.join(root, 'usr/lib/systemd/system'), { recursive: true });
    mkdirSync(path.join(root, 'etc/systemd/system'), { recursive: true });
    mkdirSync(path.join(root, 'usr/local/bin'), { recursive: true });
    writeFileSync(path.join(root, 'usr/local/bin/kernel-runner'), '#!/bin/sh\n');
    chmodSync(path.join(root, 'usr/local/bin/kernel-runner'), 0o755);
  });
  after(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  test('systemd-analyze verify finds nothing to say about it', () => {
    cpSync(unitFile, installed());
    const r = verify();
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr.trim(), '', 'no warning either');
  });

  test('the check speaks up: a misspelt key and a missing command are reported', () => {
    writeFileSync(installed(), readFileSync(unitFile, 'utf8').replace('Restart=on-failure', 'Restrat=on-failure'));
    assert.match(verify().stderr, /Unknown key 'Restrat'/);
    cpSync(unitFile, installed());
    rmSync(path.join(root, 'usr/local/bin/kernel-runner'));
    const r = verify();
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /kernel-runner is not executable/);
    writeFileSync(path.join(root, 'usr/local/bin/kernel-runner'), '#!/bin/sh\n');
    chmodSync(path.join(root, 'usr/local/bin/kernel-runner'), 0o755);
  });
});

test('the unit runs serve as its own user with the GPU groups, data dir and token file, restarting on failure', () => {
  const s = unitSettings(readFileSync(unitFile, 'utf8'));
  assert.equal(s.get('User'), 'kernel-runner');
  assert.deepEqual(s.get('SupplementaryGroups')?.split(/\s+/).sort(), ['render', 'video']);
  assert.equal(s.get('StateDirectory'), 'kernel-runner');
  assert.equal(s.get('LoadCredential'), 'token:/etc/kernel-runner/token');
  assert.match(s.get('ExecStart')!, /^kernel-runner serve .*--data-dir %S\/kernel-runner\/data --token-file %d\/token/);
  assert.equal(s.get('Restart'), 'on-failure');
  assert.equal(s.get('NoNewPrivileges'), 'yes');
  assert.equal(s.get('ProtectSystem'), 'strict');
});

test("the unit sets nothing that takes the jobs' namespaces, their /proc or the GPU devices away", () => {
  const s = unitSettings(readFileSync(unitFile, 'utf8'));
  const forbidden = [
    'RestrictNamespaces', // unshare --user --pid --mount for every job
    'PrivateUsers',
    'ProtectKernelTunables', // covers parts of /proc: the job's `--mount-proc` is then refused
    'ProtectKernelLogs',
    'ProtectProc',
    'ProcSubset',
    'PrivateDevices', // /dev/kfd, /dev/dri
    'DevicePolicy',
    'DeviceAllow',
    'ProtectClock', // adds a DeviceAllow= list: every other device closed
    'MemoryDenyWriteExecute', // JIT compilers
    'SystemCallFilter', // mount, unshare
  ];
  assert.deepEqual(
    forbidden.filter((key) => s.has(key)),
    [],
  );
});
