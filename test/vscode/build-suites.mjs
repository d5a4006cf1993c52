// Builds the extension (scripts/build.mjs) and compiles the mocha suites (test/vscode/suite/*.ts) to
// out/test/vscode/suite/*.js: one CommonJS file per suite, `vscode` and `mocha` left to the extension host.
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
export const suiteOut = join(root, 'out/test/vscode/suite');

export async function buildSuites() {
  const build = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) throw new Error(`scripts/build.mjs failed (exit ${build.status})`);
  const esbuild = await import('esbuild');
  const suiteSrc = join(root, 'test/vscode/suite');
  rmSync(suiteOut, { recursive: true, force: true });
  await esbuild.build({
    entryPoints: readdirSync(suiteSrc)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => join(suiteSrc, f)),
    outdir: suiteOut,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: 'inline',
    external: ['vscode', 'mocha'],
    logLevel: 'warning',
    define: { 'import.meta.url': '__kr_import_meta_url' },
    banner: { js: "const __kr_import_meta_url = require('url').pathToFileURL(__filename).href;" },
  });
  // The project is "type": "module"; the extension host require()s the suites, so mark this folder CommonJS.
  writeFileSync(join(suiteOut, 'package.json'), '{ "type": "commonjs" }\n');
  return join(suiteOut, 'index.js');
}
