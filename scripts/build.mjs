// One esbuild script: the extension (vscode external), the CLI and the webview bundle.
import * as esbuild from 'esbuild';
import { cpSync, existsSync, mkdirSync, chmodSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

// Sources are ESM and may use import.meta.url; the Node bundles are CommonJS (VS Code requires the extension),
// so import.meta.url is rebuilt from __filename.
const nodeCommon = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
  define: { 'import.meta.url': '__kr_import_meta_url' },
  banner: { js: "const __kr_import_meta_url = require('url').pathToFileURL(__filename).href;" },
  // Optional native/dev-only modules never enter a bundle.
  external: ['vscode', 'better-sqlite3', '@duckdb/node-api'],
};

const builds = [
  { ...nodeCommon, entryPoints: { extension: join(root, 'src/extension/main.ts') }, outdir: join(root, 'dist'), outExtension: { '.js': '.cjs' } },
  { ...nodeCommon, entryPoints: { cli: join(root, 'src/cli/main.ts') }, outdir: join(root, 'dist'), outExtension: { '.js': '.cjs' },
    banner: { js: '#!/usr/bin/env node\n' + nodeCommon.banner.js } },
  { bundle: true, platform: 'browser', target: 'es2022', format: 'iife', sourcemap: !production, minify: production, logLevel: 'warning',
    entryPoints: { webview: join(root, 'src/webview/main.ts') }, outdir: join(root, 'dist') },
].filter((b) => Object.values(b.entryPoints).every((p) => existsSync(p)));

mkdirSync(join(root, 'dist'), { recursive: true });
// sql.js reads rocpd databases in every runtime (no native module): ship its WASM beside the bundles.
cpSync(require.resolve('sql.js/dist/sql-wasm.wasm'), join(root, 'dist/sql-wasm.wasm'));

if (watch) {
  for (const b of builds) (await esbuild.context(b)).watch();
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
  if (existsSync(join(root, 'dist/cli.cjs'))) chmodSync(join(root, 'dist/cli.cjs'), 0o755);
}
