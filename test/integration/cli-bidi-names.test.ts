// Kernel names holding bidirectional controls (U+202E RIGHT-TO-LEFT OVERRIDE and the like) through the BUILT
// `kernel-runner summarize`: the table shows each control written out (`\u202e`), none reaches the terminal raw, so
// a name cannot display as another; the --json output keeps the name exact (the same escape is JSON's).
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HEADER } from '../../bench/kernelTraceData';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(repoRoot, 'dist/cli.cjs');
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
/** Shown raw, "gemm_kernel\u202egnp.exe" reads as "gemm_kernelexe.png". */
const NAMES = ['gemm_kernel\u202egnp.exe', 'conv\u2066_isolated\u2069_kernel', 'scale\u200f_\u061c_kernel'];

before(() => {
  if (!existsSync(cli)) {
    const r = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: repoRoot, stdio: 'inherit' });
    assert.equal(r.status, 0, 'build failed');
  }
});

function trace(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'kr-bidi-'));
  const rows = NAMES.map(
    (name, i) =>
      `"KERNEL_DISPATCH",1,1,0,1,${i + 1},${i + 1},"${name}",${i + 1},${1000 * (i + 1)},${1000 * (i + 1) + 500 + i},0,0,8,0,16,64,1,1,1024,1,1`,
  );
  const file = path.join(dir, 'kernel_trace.csv');
  writeFileSync(file, [HEADER, ...rows].join('\n') + '\n');
  return file;
}

test('summarize: bidirectional controls in kernel names are shown written out, never raw', () => {
  const file = trace();
  const table = spawnSync(process.execPath, [cli, 'summarize', file], { encoding: 'utf8' });
  assert.equal(table.status, 0, table.stderr);
  assert.doesNotMatch(table.stdout, BIDI, 'no raw bidirectional control reaches the terminal');
  for (const shown of [
    'gemm_kernel\\u202egnp.exe',
    'conv\\u2066_isolated\\u2069_kernel',
    'scale\\u200f_\\u061c_kernel',
  ])
    assert.ok(table.stdout.includes(shown), `${shown} in:\n${table.stdout}`);

  const json = spawnSync(process.execPath, [cli, 'summarize', file, '--json'], { encoding: 'utf8' });
  assert.equal(json.status, 0, json.stderr);
  assert.doesNotMatch(json.stdout, BIDI);
  const names = (JSON.parse(json.stdout) as { kernels: Array<{ name: string }> }).kernels.map((k) => k.name);
  assert.deepEqual([...names].sort(), [...NAMES].sort(), 'the JSON keeps the names exact');
});
