// The `kernel-runner` bin (dist/cli.cjs) loads the CLI bundle with a V8 code cache kept per command in the user's
// cache folder. Runs the BUILT CLI: the cache is written, used, replaced when unusable, and never needed.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheVariant, compileCacheDir } from '../../src/cli/compileCache';
import { ensureBuilt } from './submit/helpers';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(repoRoot, 'dist/cli.cjs');
// Node 22+ keeps the cache itself (module.enableCompileCache, in our folder but in its own layout)
const nodeCompileCache = Number(process.versions.node.split('.')[0]) >= 22;

before(() => {
  ensureBuilt();
});

function filter(cacheHome: string, extraEnv: Record<string, string> = {}) {
  const env = {
    ...process.env,
    XDG_CACHE_HOME: cacheHome,
    KERNEL_RUNNER_NO_COMPILE_CACHE: '',
    NODE_DISABLE_COMPILE_CACHE: '',
    ...extraEnv,
  };
  const r = spawnSync(process.execPath, [cli, 'filter'], {
    input: 'hello\n[329.254] perfetto.cc:33197 Producer connected\n',
    env,
  });
  return { status: r.status, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

test(
  'the code cache is written on first use, reused, and replaced when it is not valid',
  { skip: nodeCompileCache && 'Node >= 22 keeps its own compile cache' },
  () => {
    const home = mkdtempSync(path.join(tmpdir(), 'kr-cache-'));
    try {
      const dir = path.join(home, 'kernel-runner', 'compile');
      const first = filter(home);
      assert.deepEqual([first.status, first.stdout, first.stderr], [0, 'hello\n', '']);
      const files = readdirSync(dir);
      assert.equal(files.length, 1);
      assert.match(files[0] as string, /^filter\.[a-z0-9]+\.cache$/);
      const cacheFile = path.join(dir, files[0] as string);
      const size = statSync(cacheFile).size;
      assert.ok(size > 10_000, `a real code cache (${size} bytes)`);

      const second = filter(home);
      assert.deepEqual([second.status, second.stdout], [0, 'hello\n']);
      assert.deepEqual(readdirSync(dir), files);

      writeFileSync(cacheFile, 'not a code cache');
      const third = filter(home);
      assert.deepEqual([third.status, third.stdout, third.stderr], [0, 'hello\n', '']);
      assert.ok(statSync(cacheFile).size > 10_000, 'the bad cache was replaced');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  },
);

test('without a usable cache folder, or with the cache turned off, the CLI runs the same', () => {
  const home = mkdtempSync(path.join(tmpdir(), 'kr-cache-'));
  try {
    const off = filter(home, { KERNEL_RUNNER_NO_COMPILE_CACHE: '1' });
    assert.deepEqual([off.status, off.stdout, off.stderr], [0, 'hello\n', '']);
    assert.equal(existsSync(path.join(home, 'kernel-runner')), false);
    const blocked = path.join(home, 'file');
    writeFileSync(blocked, 'a file where the cache folder would go');
    const unwritable = filter(blocked);
    assert.deepEqual([unwritable.status, unwritable.stdout, unwritable.stderr], [0, 'hello\n', '']);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('cache folder per platform: XDG_CACHE_HOME or ~/.cache, Library/Caches, LOCALAPPDATA', () => {
  assert.equal(
    compileCacheDir({ XDG_CACHE_HOME: '/x/cache' }, 'linux'),
    path.join('/x/cache', 'kernel-runner', 'compile'),
  );
  assert.match(
    compileCacheDir({ XDG_CACHE_HOME: 'relative' }, 'linux') ?? '',
    /\.cache[\\/]kernel-runner[\\/]compile$/,
  );
  assert.match(compileCacheDir({}, 'darwin') ?? '', /Library[\\/]Caches[\\/]kernel-runner[\\/]compile$/);
  assert.equal(
    compileCacheDir({ LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, 'win32'),
    path.join('C:\\Users\\u\\AppData\\Local', 'kernel-runner', 'Cache', 'compile'),
  );
});

test('a cache per command, and submit with its embedded runner apart from submit --server', () => {
  const argv = (...args: string[]) => ['node', 'cli.cjs', ...args];
  assert.equal(cacheVariant(argv('submit', 'k.py')), 'submit-embedded');
  assert.equal(cacheVariant(argv('submit', 'k.py', '--mode', 'profile')), 'submit-embedded');
  assert.equal(cacheVariant(argv('submit', 'k.py', '--server', 'http://127.0.0.1:8787')), 'submit');
  assert.equal(cacheVariant(argv('submit', '--server=gpumode', 'k.py')), 'submit');
  assert.equal(cacheVariant(argv('summarize', 'a.zip')), 'summarize');
  assert.equal(cacheVariant(argv('--help')), 'default');
  assert.equal(cacheVariant(argv()), 'default');
});
