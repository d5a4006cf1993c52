// A program's output cannot drive the user's terminal through `kernel-runner submit`: 8-bit CSI, backspaces, CR,
// OSC and cursor sequences never reach stdout or stderr, live or in the result; --json stays exact JSON.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDirsRemovedAfter } from '../../support/tempDirs';
import { ensureBuilt, runCli } from './helpers';

const tempDir = tempDirsRemovedAfter('kr-controls-');
// eslint-disable-next-line no-control-regex
const DRIVES_TERMINAL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

const hostile = `
import sys
for stream in (sys.stdout, sys.stderr):
    stream.write("\\x9b2J\\x9b1;1Hspoofed line\\n")
    stream.write("fake\\b\\b\\b\\breal\\n")
    stream.write("\\x1b]0;owned\\x07\\x1b[2J\\x1b[1Acursor\\x1b[6n\\n")
    stream.write("bell\\x07 nul\\x00 del\\x7f end\\n")
    stream.flush()
raise SystemExit(3)
`;

before(() => ensureBuilt());

test('submit: live output, the result and the error lines carry no terminal control', async () => {
  const dir = tempDir('run');
  const file = path.join(dir, 'hostile.py');
  writeFileSync(file, hostile);
  const r = await runCli(['submit', file], { cwd: dir });
  assert.equal(r.code, 1, r.stderr);
  for (const [name, text] of [
    ['stdout', r.stdout],
    ['stderr', r.stderr],
  ] as const) {
    assert.doesNotMatch(text, DRIVES_TERMINAL, `${name}: ${JSON.stringify(text)}`);
    assert.ok(!text.includes('\x1b'), `${name} has no ESC`);
  }
  // the text itself is kept
  assert.match(r.stdout, /spoofed line/);
  assert.match(r.stdout, /fakereal/);
  assert.match(r.stderr, /bell nul del\\u007f end/);
});

test('submit --json: the JSON on stdout is exact JSON, DEL and backspaces kept as data', async () => {
  const dir = tempDir('json');
  const file = path.join(dir, 'hostile.py');
  writeFileSync(file, hostile);
  const r = await runCli(['submit', file, '--json'], { cwd: dir });
  assert.equal(r.code, 1, r.stderr);
  assert.doesNotMatch(r.stdout, DRIVES_TERMINAL);
  assert.doesNotMatch(r.stderr, DRIVES_TERMINAL);
  const body = JSON.parse(r.stdout) as {
    ok: boolean;
    result: { results: Array<{ runs: { test: { run: { stdout: string } } } }> };
  };
  assert.equal(body.ok, false);
  const stdout = body.result.results[0]!.runs.test.run.stdout;
  // the runner keeps the program's text without its escape sequences; the rest is data, not terminal input
  assert.ok(stdout.includes('fake\b\b\b\breal'), JSON.stringify(stdout));
  assert.ok(stdout.includes('del\x7f end'), JSON.stringify(stdout));
  assert.ok(
    !stdout.includes('\x9b') && stdout.includes('spoofed line'),
    'the 8-bit CSI sequences went with the 7-bit ones',
  );
});
