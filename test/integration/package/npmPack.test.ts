// The runner as a GPU box gets it: `npm pack` of the built tree, the tarball installed into an empty prefix (offline:
// the bundles need no dependency), then the installed `kernel-runner` serves with deploy/kernel-runner.service's
// own command line (its %S, %d and variables filled in for a temp dir, on loopback, the token in a file) and takes
// a `submit --server` of the example that the package itself carries.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensureBuiltWith, repoRoot, tempDir } from '../submit/helpers';
import { unitSettings } from './unitFile';

const npm = 'npm';
const runtimeFiles = [
  'dist/cli.cjs',
  'dist/cli-main.cjs',
  'dist/trace-worker.cjs',
  'dist/summary-worker.cjs',
  'dist/sql-wasm.wasm',
  'dist/third-party-notices.txt',
];

interface Packed {
  filename: string;
  size: number;
  entryCount: number;
  files: Array<{ path: string }>;
}

let work: string;
let packed: Packed;
let prefix: string;
let installed: string;
let bin: string;
let serve: ChildProcess | undefined;

function run(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...opts });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, error: r.error };
}

before(() => {
  ensureBuiltWith(...runtimeFiles);
  work = tempDir('kr-npm-pack-');
  // --ignore-scripts: the package's prepack (a production build) would rewrite dist/ under the other tests' feet
  const r = run(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: repoRoot });
  assert.equal(r.code, 0, r.stderr);
  packed = (JSON.parse(r.stdout) as Packed[])[0]!;
  prefix = path.join(work, 'prefix');
  mkdirSync(prefix);
});

after(async () => {
  if (serve && serve.exitCode === null) {
    const closed = new Promise((done) => serve!.once('close', done));
    serve.kill('SIGTERM');
    await closed;
  }
  if (work) rmSync(work, { recursive: true, force: true });
});

test('the tarball holds the built CLI and runner, the examples, the unit file, README and LICENSE: nothing else', () => {
  const files = packed.files.map((f) => f.path).sort();
  const examples = execFileSync('git', ['ls-files', 'examples', 'deploy'], { cwd: repoRoot, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
  const expected = [...runtimeFiles, ...examples, 'package.json', 'README.md', 'LICENSE', 'CHANGELOG.md'].sort();
  assert.deepEqual(files, expected);
  assert.ok(!files.some((f) => /^(test|src|bench)\/|\.map$|__pycache__|\.pyc$/.test(f)));
  console.log(`# npm pack: ${packed.filename}, ${packed.entryCount} files, ${packed.size} bytes`);
});

test('it installs into an empty prefix offline, fetching nothing and warning about no engine', () => {
  const r = run(npm, [
    'install',
    '-g',
    '--offline',
    '--no-audit',
    '--no-fund',
    '--prefix',
    prefix,
    path.join(work, packed.filename),
  ]);
  assert.equal(r.code, 0, `${r.stdout}${r.stderr}`);
  assert.doesNotMatch(`${r.stdout}${r.stderr}`, /EBADENGINE|deprecated/);
  assert.match(r.stdout, /added 1 package/);
  installed = path.join(prefix, 'lib/node_modules/kernel-runner');
  bin = path.join(prefix, 'bin/kernel-runner');
  assert.ok(existsSync(bin), 'the bin is linked');
  assert.ok(!existsSync(path.join(installed, 'node_modules')), 'no dependency was installed');
  assert.deepEqual(readdirSync(installed).sort(), [
    'CHANGELOG.md',
    'LICENSE',
    'README.md',
    'deploy',
    'dist',
    'examples',
    'package.json',
  ]);

  const help = run(bin, ['--help']);
  assert.equal(help.code, 0, help.stderr);
  for (const command of ['serve', 'submit', 'summarize', 'mcp'])
    assert.match(help.stdout, new RegExp(`^\\s+${command}\\b`, 'm'));
});

test("the installed CLI serves with the unit's command line and token file, and runs a submission of its example", async () => {
  assert.ok(bin, 'installed by the test before');
  const unit = unitSettings(readFileSync(path.join(installed, 'deploy/kernel-runner.service'), 'utf8'));
  const envFile = unitSettings(readFileSync(path.join(installed, 'deploy/kernel-runner.env'), 'utf8'));
  const state = path.join(work, 'state'); // %S
  const credentials = path.join(work, 'credentials'); // %d
  mkdirSync(path.join(state, 'kernel-runner'), { recursive: true, mode: 0o700 });
  mkdirSync(credentials, { mode: 0o700 });
  const token = 'pack-test-token-7c1e9a';
  writeFileSync(path.join(credentials, 'token'), `${token}\n`, { mode: 0o600 });
  // the variables as the unit's Environment= and the example env file give them, on loopback and any port here
  const vars: Record<string, string> = {
    KR_SERVE_ARGS: envFile.get('KR_SERVE_ARGS') ?? '',
    KR_HOST: '127.0.0.1',
    KR_PORT: '0',
  };
  const argv = unit
    .get('ExecStart')!
    .replaceAll('%S', state)
    .replaceAll('%d', credentials)
    .split(/\s+/)
    .flatMap((word) => {
      const v = /^\$\{?(\w+)\}?$/.exec(word)?.[1];
      if (!v) return [word];
      assert.ok(v in vars, `the test knows ${v}`);
      return vars[v] ? vars[v].split(/\s+/) : []; // systemd: an unbraced $VAR splits into words, an empty one is none
    });
  assert.equal(argv[0], 'kernel-runner');
  assert.ok(!argv.includes(token), 'the token is not on the command line');
  serve = spawn(bin, argv.slice(1), {
    cwd: path.join(state, 'kernel-runner'),
    env: { ...process.env, HOME: path.join(state, 'kernel-runner') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    serve!.stdout!.setEncoding('utf8').on('data', (t: string) => {
      out += t;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    serve!.stderr!.setEncoding('utf8').on('data', (t: string) => (out += t));
    serve!.once('close', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
  });
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.match(out, /problems:\s+.*vectoradd_py/, 'the packed examples are its problems');
  assert.ok(!out.includes(token), 'serve does not print a token it read from a file');

  const example = path.join(installed, 'examples/problems/vectoradd_py/submission.py');
  const tokenFile = path.join(credentials, 'token');
  const refused = run(bin, ['submit', example, '--server', url, '--mode', 'test'], { cwd: work });
  assert.notEqual(refused.code, 0, 'without the token the runner refuses');
  assert.match(`${refused.stdout}${refused.stderr}`, /token/i, 'and says why');
  const r = run(bin, ['submit', example, '--server', url, '--token-file', tokenFile, '--mode', 'test'], { cwd: work });
  assert.equal(r.code, 0, `${r.stdout}${r.stderr}`);
  assert.match(r.stdout, /3\/3 tests passed/);
  assert.match(r.stdout, /^test: passed/m);
  assert.ok(existsSync(path.join(state, 'kernel-runner/data')), 'the job went to the data dir the unit names');
});
