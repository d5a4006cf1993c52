// The built CLI's profile digest: `summarize --digest` (schema-valid, the same bytes twice, the budget kept, a
// baseline, bad budgets refused) and `submit --mode profile`, which saves a digest beside each trace and says where.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { ensureBuilt, profilingPath, repoRoot, runCli, tempDir, vectoradd } from './submit/helpers';
import { writeRun } from '../unit/trace/rangeRuns';

const schemaCheck = new Ajv({ allErrors: true, strict: true }).compile(
  JSON.parse(readFileSync(path.join(repoRoot, 'docs/digest.schema.json'), 'utf8')),
);
const validate = Object.assign((d: unknown): boolean => schemaCheck(d), {
  get errors() {
    return schemaCheck.errors;
  },
});
let work: string;

before(() => {
  ensureBuilt();
  work = tempDir('kr-cli-digest-');
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

test('summarize --digest: one valid JSON document, the same bytes twice, within --max-bytes; --baseline adds verdicts', async () => {
  const run = path.join(work, 'run');
  rmSync(run, { recursive: true, force: true });
  (await import('node:fs')).mkdirSync(run);
  writeRun(run);
  const first = await runCli(['summarize', run, '--digest']);
  assert.equal(first.code, 0, first.stderr);
  const again = await runCli(['summarize', run, '--digest']);
  assert.equal(again.stdout, first.stdout);
  const d = JSON.parse(first.stdout);
  assert.ok(validate(d), JSON.stringify(validate.errors));
  assert.equal(d.schemaVersion, 1);
  assert.deepEqual(d.links, [{ rel: 'trace', href: run }]);
  const small = await runCli(['summarize', run, '--digest', '--max-bytes', '2048']);
  assert.equal(small.code, 0, small.stderr);
  assert.ok(Buffer.byteLength(small.stdout) <= 2048);
  const based = await runCli(['summarize', run, '--digest', '--baseline', run]);
  assert.equal(based.code, 0, based.stderr);
  const b = JSON.parse(based.stdout);
  assert.ok(validate(b), JSON.stringify(validate.errors));
  assert.equal(b.baseline.trace.file, 'run');
  assert.ok(
    b.kernels.every(
      (k: { change?: { verdict: string } }) => k.change && ['no-change', 'not-enough-runs'].includes(k.change.verdict),
    ),
  );
  const bad = await runCli(['summarize', run, '--digest', '--max-bytes', '100']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--max-bytes takes at least 2048/);
  assert.equal(bad.stdout, '');
  const notDigest = await runCli(['summarize', run, '--baseline', run]);
  assert.equal(notDigest.code, 2);
  assert.match(notDigest.stderr, /--baseline goes with --digest/);
});

test('submit --mode profile (embedded runner, stand-in rocprofv3): a digest beside each trace, its path printed, in --json too', async () => {
  const out = path.join(work, 'traces');
  const r = await runCli(
    ['submit', path.join(vectoradd, 'submission.py'), '--mode', 'profile', '--out', out, '--json'],
    { env: { PATH: profilingPath } },
  );
  assert.equal(r.code, 0, r.stderr);
  const body = JSON.parse(r.stdout);
  assert.ok(body.traces.length > 0);
  const submitted = (await import('node:crypto'))
    .createHash('sha256')
    .update(readFileSync(path.join(vectoradd, 'submission.py')))
    .digest('hex');
  for (const t of body.traces) {
    assert.equal(t.digest_error, null);
    assert.equal(t.digest_path, t.path.replace(/\.zip$/, '.digest.json'));
    const saved = JSON.parse(readFileSync(t.digest_path, 'utf8'));
    assert.deepEqual(saved, t.digest);
    assert.ok(validate(saved), JSON.stringify(validate.errors));
    assert.equal(saved.provenance.submission.sha256, submitted);
    assert.equal(saved.provenance.configuration.values.mode, 'profile');
    assert.equal(saved.provenance.configuration.values.server, 'embedded');
    assert.match(saved.provenance.trace.sha256, /^[0-9a-f]{64}$/);
    assert.ok(saved.cases.length > 0, "the evaluator's rocTX range is a case");
  }
  const text = await runCli(['submit', path.join(vectoradd, 'submission.py'), '--mode', 'profile', '--out', out], {
    env: { PATH: profilingPath },
    cwd: work,
  });
  assert.equal(text.code, 0, text.stderr);
  assert.match(
    text.stdout,
    /profile\.0: profile digest \(for an agent\) saved to traces\/\S+-profile\.0-2\.digest\.json/,
  );
});
