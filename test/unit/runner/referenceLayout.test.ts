// The pieces that read a reference-kernels checkout as kernelbot does: Python's spelling of spec values (checked
// against what python3 itself prints, when there is one), deadlines as parse_deadline reads them, competition
// files (names, GPUs, deadlines, what is refused), multi-GPU tasks, and the cases of each mode under ranking_by.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseDeadline } from '../../../src/runner/competitions';
import { casesFor } from '../../../src/runner/evaluate';
import { loadProblem, loadProblems } from '../../../src/runner/problems';
import { caseLine, pyFloatRepr, pyRepr } from '../../../src/runner/pyrepr';

function python(code: string): string | null {
  try {
    return execFileSync('python3', ['-c', code], { encoding: 'utf8' });
  } catch {
    return null;
  }
}

test('floats, strings and lists are spelled as Python spells them', (t) => {
  const floats = [
    1e-5, 0.0001, 1e16, 1.5e16, 123.456, 3, 0.1, 1e15, 2.5e-7, -0.5, 100, 1e22, 5e-324, 1.7976931348623157e308, -0,
  ];
  const strings = ['plain', "it's", 'say "hi"', `both ' and "`, 'tab\there', 'back\\slash', 'é ü', 'nl\n'];
  const ours = [...floats.map(pyFloatRepr), ...strings.map((s) => pyRepr(s))];
  assert.deepEqual(ours.slice(0, 4), ['1e-05', '0.0001', '1e+16', '1.5e+16']);
  assert.equal(
    pyRepr([1n, true, null, 'a', [2.5, false]], { numbersAreFloats: true }),
    "[1, True, None, 'a', [2.5, False]]",
  );
  assert.equal(pyRepr({ k: 1 }), "{'k': 1}");
  // the same values handed to python3 as text (JSON string literals are Python string literals here)
  const literals = floats.map((f) => `float(${JSON.stringify(Object.is(f, -0) ? '-0.0' : String(f))})`);
  const printed = python(
    `for x in [${literals.join(', ')}]: print(repr(x))\nfor s in ${JSON.stringify(strings)}: print(repr(s))`,
  );
  if (printed === null) {
    t.diagnostic('python3 not available: compared with the spellings above only');
    return;
  }
  assert.deepEqual(ours, printed.trimEnd().split('\n').slice(0, ours.length));
});

test('a case line: str() of each value, repr inside lists; 3.0 stays a float when the file said so', () => {
  assert.equal(
    caseLine({ m: [96, 128], flag: true, dtype: 'fp8', seed: 4 }),
    'm: [96, 128]; flag: True; dtype: fp8; seed: 4',
  );
  assert.equal(caseLine({ scale: 3, ratio: 0.5 }, { numbersAreFloats: true }), 'scale: 3.0; ratio: 0.5');
  assert.equal(caseLine({ scale: 3n }, { numbersAreFloats: true }), 'scale: 3');
  assert.equal(caseLine({ names: ['a', "it's"], none: null }), `names: ['a', "it's"]; none: None`);
});

test("deadlines as kernelbot parse_deadline reads them, in the service's isoformat", () => {
  assert.equal(parseDeadline('2025-06-02'), '2025-06-02T00:00:00+00:00');
  assert.equal(parseDeadline('2025-11-29 6:59'), '2025-11-29T06:59:00+00:00');
  assert.equal(parseDeadline('2100-12-31'), '2100-12-31T00:00:00+00:00');
  assert.equal(parseDeadline(new Date(Date.UTC(2026, 3, 7, 7, 59))), '2026-04-07T07:59:00+00:00');
  for (const bad of ['', '2025-02-30', '2025-06-02T10:00', '2025-06-02 24:00', 'soon', 20250602])
    assert.equal(parseDeadline(bad), null, String(bad));
});

test('ranking_by: last gives benchmark and leaderboard runs the last case only; tests are never cut', () => {
  const p = { testLines: ['t0', 't1'], benchmarkLines: ['b0', 'b1', 'b2'], rankingBy: 'last' as const };
  assert.deepEqual(casesFor(p, 'test'), ['t0', 't1']);
  assert.deepEqual(casesFor(p, 'benchmark'), ['b2']);
  assert.deepEqual(casesFor(p, 'leaderboard'), ['b2']);
  assert.deepEqual(casesFor({ ...p, rankingBy: 'geom' }, 'leaderboard'), ['b0', 'b1', 'b2']);
});

const TASK =
  'files:\n  - {"name": "submission.py", "source": "@SUBMISSION@"}\nlang: "py"\ndescription: "the task"\ntests:\n  - {"n": 1}\n';

test('competition files: a folder under several names, folders in none by folder name, refusals with reasons', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kr-comp-'));
  try {
    for (const f of ['a/one', 'a/two', 'b/three', 'b/gpus', 'b/free']) {
      mkdirSync(path.join(dir, f), { recursive: true });
      writeFileSync(path.join(dir, f, 'task.yml'), f === 'b/gpus' ? TASK + 'gpus: [H100]\n' : TASK);
    }
    writeFileSync(
      path.join(dir, 'first.yaml'),
      'name: First\ndeadline: "2099-01-01"\ndescription: "not a leaderboard description"\nproblems:\n' +
        '  - {directory: a/one, name: one, deadline: "2099-02-03 04:05", gpus: [MI300]}\n' +
        '  - {directory: a/one, name: one-again, gpus: MI355X}\n' +
        '  - {directory: a/missing, name: ghost, gpus: [MI300]}\n' +
        '  - {directory: ../elsewhere, name: escape, gpus: [MI300]}\n' +
        '  - {name: nameless}\n' +
        '  - {directory: a/two, name: two, deadline: "next week", gpus: [MI300]}\n' +
        '  - {directory: b/gpus, name: from-task}\n',
    );
    // a second file naming a taken name (case aside): the first one wins; that folder is listed, so it is not
    // served under its folder name either (upstream would fail to create the leaderboard)
    writeFileSync(
      path.join(dir, 'second.yaml'),
      'name: Second\nproblems:\n  - {directory: b/three, name: ONE, gpus: [MI300]}\n',
    );
    writeFileSync(path.join(dir, 'broken.yaml'), 'problems: [\n');
    writeFileSync(path.join(dir, 'notes.yml'), 'problems:\n  - {directory: b/three, name: yml-is-not-read}\n');
    const set = loadProblems(dir);
    assert.deepEqual([...set.problems.keys()].sort(), ['free', 'from-task', 'one', 'one-again', 'two']);
    assert.deepEqual(
      [set.problems.get('free')!.gpus, set.problems.get('free')!.deadline, set.problems.get('free')!.competition],
      [[], null, null],
      'in no competition: its folder name',
    );
    const one = set.problems.get('one')!;
    assert.deepEqual(
      [one.gpus, one.deadline, one.description, one.competition],
      [['MI300'], '2099-02-03T04:05:00+00:00', 'the task', 'first.yaml'],
    );
    assert.deepEqual(
      [set.problems.get('one-again')!.gpus, set.problems.get('one-again')!.deadline],
      [['MI355X'], null],
    );
    assert.equal(set.problems.get('one-again')!.dir, one.dir);
    assert.deepEqual(set.problems.get('from-task')!.gpus, ['H100'], "the task.yml's gpus when the entry has none");
    assert.equal(set.problems.get('two')!.deadline, null);
    const warnings = set.warnings.join('\n');
    for (const why of [
      /ghost: directory .*a\/missing has no task\.yml/,
      /escape\): directory \.\.\/elsewhere is outside the problems folder/,
      /skipped, it needs a name and a directory/,
      /two\): deadline "next week" is not YYYY-MM-DD/,
      /ONE: a leaderboard named 'one' was already loaded/,
      /broken\.yaml/,
    ]) {
      assert.match(warnings, why);
    }
    assert.ok(!warnings.includes('yml-is-not-read'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('multi_gpu tasks: every case names its world_size (kernelbot refuses the task otherwise)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kr-multi-'));
  try {
    writeFileSync(
      path.join(dir, 'task.yml'),
      TASK.replace('{"n": 1}', '{"n": 1, "world_size": 8}') + 'multi_gpu: true\nbenchmarks:\n  - {"n": 2}\n',
    );
    assert.throws(
      () => loadProblem(path.join(dir, 'task.yml')),
      /multi-gpu benchmark \{"n":2\} does not specify world_size/,
    );
    writeFileSync(
      path.join(dir, 'task.yml'),
      TASK.replace('{"n": 1}', '{"n": 1, "world_size": 8}') + 'multi_gpu: true\n',
    );
    assert.equal(loadProblem(path.join(dir, 'task.yml')).multiGpu, true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
