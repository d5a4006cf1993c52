// Loads the CLI bundle with V8's code cache, so that a command starts without parsing and compiling megabytes of
// bundled JavaScript again. Node 22+ does this itself (module.enableCompileCache, pointed at our folder); on Node 20
// the bundle is compiled with vm.Script and the cache kept per command in the user's cache folder. Set
// KERNEL_RUNNER_NO_COMPILE_CACHE=1 (or NODE_DISABLE_COMPILE_CACHE=1) to load the bundle the plain way. Any problem
// with the cache falls back to the plain way: never a reason to fail.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { homedir } from 'node:os';
import path from 'node:path';
import { Script } from 'node:vm';
import { isAscii } from 'node:buffer';

/** Per-user cache folder, or null when there is no sensible one. */
export function compileCacheDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string | null {
  let home: string;
  try {
    home = homedir();
  } catch {
    return null;
  }
  if (platform === 'win32')
    return path.join(env.LOCALAPPDATA ?? path.join(home, 'AppData', 'Local'), 'kernel-runner', 'Cache', 'compile');
  if (platform === 'darwin') return path.join(home, 'Library', 'Caches', 'kernel-runner', 'compile');
  const base =
    env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : path.join(home, '.cache');
  return path.join(base, 'kernel-runner', 'compile');
}

/** FNV-1a, enough to tell builds of the bundle apart in a file name: 7 characters of [0-9a-z]. */
function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(36).padStart(7, '0');
}

/**
 * Which code cache a command line uses: its command, and for `submit` whether it starts the embedded runner (no
 * --server): a cache holds the functions its first run compiled, so one written by `submit --server` left the
 * embedded run compiling the runner every time (and one written by an embedded run made `--server` load the
 * runner's code it never runs).
 */
export function cacheVariant(argv: readonly string[] = process.argv): string {
  const command = argv[2] ?? '';
  if (!/^[a-z][a-z-]{0,31}$/.test(command)) return 'default';
  if (command !== 'submit') return command;
  return argv.slice(3).some((a) => a === '--server' || a.startsWith('--server=')) ? command : 'submit-embedded';
}

/** Compiles the bundle with the code cache; returns the function that runs it, or null to load it the plain way. */
function compileWithCodeCache(bundle: string, dir: string): (() => void) | null {
  const requireHere = createRequire(bundle);
  const stat = statSync(bundle);
  // One cache per command (cacheVariant: each warms the functions it runs; the CLI loads only the command it runs) and per build
  // of the bundle: V8 checks little more than the source's length against a cache, so which build it belongs to
  // must be part of the key. Where the bundle lives is a key of its own: a new build replaces the caches of its
  // older builds, never those of another install or checkout (two of them would otherwise evict each other's).
  const command = cacheVariant();
  // `<command>.<where: 7 chars><build: 7 chars>.cache`
  const prefix = `${command}.${hash(bundle)}`;
  const key = hash(`${bundle}\0${stat.size}\0${stat.mtimeMs}\0${process.version}\0${process.arch}`);
  const cacheFile = path.join(dir, `${prefix}${key}.cache`);
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // first run of this command with this build
  }
  const bytes = readFileSync(bundle);
  // esbuild writes ASCII (it escapes other characters): decoded as one-byte text it skips UTF-8 decoding (~2 ms)
  const source = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  const script = new Script(Module.wrap(source), { filename: bundle, cachedData });
  if (!cachedData || script.cachedDataRejected) {
    // Written at exit, when the functions this command ran are compiled too.
    process.once('exit', () => {
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        for (const old of readdirSync(dir)) {
          // this bundle's older builds, and caches named as older versions of this file named them (`<command>.<build>`)
          const stale = old.startsWith(prefix) || new RegExp(`^${command}\\.[0-9a-z]{1,7}\\.cache$`).test(old);
          if (stale && old !== path.basename(cacheFile)) rmSync(path.join(dir, old), { force: true });
        }
        const tmp = `${cacheFile}.${process.pid}.tmp`;
        writeFileSync(tmp, script.createCachedData(), { mode: 0o600 });
        renameSync(tmp, cacheFile);
      } catch {
        // a read-only or full disk only costs the next start its speed
      }
    });
  }
  const wrapper = script.runInThisContext() as (
    exports: object,
    require: NodeJS.Require,
    module: object,
    filename: string,
    dirname: string,
  ) => void;
  return () => {
    const mod = { exports: {}, filename: bundle, id: bundle, loaded: false };
    wrapper.call(mod.exports, mod.exports, requireHere, mod, bundle, path.dirname(bundle));
    mod.loaded = true;
  };
}

/** Runs the CommonJS bundle at `bundle` (an absolute path) as require() would, through the code cache. */
export function loadWithCompileCache(bundle: string, env: NodeJS.ProcessEnv = process.env): void {
  const disabled = Boolean(env.KERNEL_RUNNER_NO_COMPILE_CACHE || env.NODE_DISABLE_COMPILE_CACHE);
  const dir = disabled ? null : compileCacheDir(env);
  const enable = (Module as unknown as { enableCompileCache?: (dir?: string) => unknown }).enableCompileCache;
  if (dir && typeof enable === 'function') {
    try {
      enable(dir);
    } catch {
      // plain loading below
    }
  } else if (dir) {
    let run: (() => void) | null;
    try {
      run = compileWithCodeCache(bundle, dir);
    } catch {
      run = null;
    }
    // Errors of the CLI itself propagate as they would from require(): only the cache may fall back.
    if (run) return run();
  }
  createRequire(bundle)(bundle);
}
