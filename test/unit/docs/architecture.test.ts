// docs/architecture.md names only what exists: every repository path written in it resolves (a folder where it ends
// in `/`, a file where not), and every `file:name` (a function, class or `Class.method`) names identifiers that the file contains.
// Build output (dist/) and paths outside the repository (../shared) are not checked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { broken, references, repo } from '../../support/docPaths';

const DOC = 'docs/architecture.md';

test('every path and file:name in docs/architecture.md resolves', () => {
  const refs = references(readFileSync(path.join(repo, DOC), 'utf8'));
  assert.ok(refs.length >= 100, `only ${refs.length} references found`);
  assert.ok(refs.filter((r) => r.names.length).length >= 20, 'too few file:name references found');
  assert.deepEqual(broken(refs), []);
});

test('the check sees a missing file, a file that is no folder and a name the file lacks', () => {
  const refs = references(
    'See `src/extension/runs/controller.ts:RunController.runFile`, `src/core/format/` and `package.json`.\n' +
      'Gone: `src/extension/nowhere.ts`, `src/extension/ui.ts/`, `src/core/format`, `src/extension/runs/controller.ts:RunController.fly`, ' +
      '`src/core/client/client.ts:createRunnerClientX`; not checked: `dist/extension.cjs`, `../shared/docs/rocprof.md`.',
  );
  assert.deepEqual(
    refs.map((r) => [r.path, ...r.names]),
    [
      ['src/extension/runs/controller.ts', 'RunController', 'runFile'],
      ['src/core/format/'],
      ['src/extension/nowhere.ts'],
      ['src/extension/ui.ts/'],
      ['src/core/format'],
      ['src/extension/runs/controller.ts', 'RunController', 'fly'],
      ['src/core/client/client.ts', 'createRunnerClientX'],
      ['package.json'],
    ],
  );
  assert.deepEqual(broken(refs), [
    'src/extension/nowhere.ts: no such file',
    'src/extension/ui.ts/: no such folder',
    'src/core/format: no such file',
    'src/extension/runs/controller.ts: no fly',
    'src/core/client/client.ts: no createRunnerClientX',
  ]);
});
