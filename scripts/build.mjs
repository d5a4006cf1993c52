// One esbuild script: the extension (vscode external), the CLI and the webview bundle.
import * as esbuild from 'esbuild';
import { cpSync, existsSync, mkdirSync, chmodSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

// axios touches the fetch, Request, Response and FormData globals when it is imported, and in Node 20 the first
// touch loads undici: 10-20 ms of every start of the CLI. We only ever use axios's http adapter with Buffer or
// stream bodies (src/core/client/http.ts), so, in our bundles:
//  - its fetch adapter is one that reports fetch as unavailable;
//  - its isFormData() recognises FormData by its tag ([object FormData]), the check it already falls back to,
//    instead of `instanceof` the global (whose lookup loads undici).
// If an axios update changes the patched line, the build says so and bundles axios as it is.
const FORMDATA_CTOR_LINE = "const FormDataCtor = typeof G.FormData !== 'undefined' ? G.FormData : undefined;";
const axiosWithoutFetch = {
  name: 'axios-without-fetch',
  setup(build) {
    build.onResolve({ filter: /^\.\/fetch\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]axios[\\/]lib[\\/]adapters$/.test(args.resolveDir)
        ? { path: 'axios-fetch-adapter', namespace: 'kernel-runner-stub' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'kernel-runner-stub' }, () => ({
      contents: 'export const getFetch = () => false;\nexport default false;\n',
      loader: 'js',
    }));
    build.onLoad({ filter: /[\\/]node_modules[\\/]axios[\\/]lib[\\/]utils\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (!source.includes(FORMDATA_CTOR_LINE)) {
        return {
          contents: source,
          loader: 'js',
          warnings: [{ text: 'axios utils.js changed: FormData patch not applied (CLI start loads undici again)' }],
        };
      }
      return { contents: source.replace(FORMDATA_CTOR_LINE, 'const FormDataCtor = undefined;'), loader: 'js' };
    });
  },
};

// axios (and follow-redirects, which it loads) load, when imported, things we never or only sometimes use, ~12 ms
// of every CLI start together:
//  - form-data, and some twenty packages with it (mime-db's JSON among them), for toFormData, which turns plain
//    objects into multipart bodies: our client builds its own (src/core/client/multipart.ts);
//  - node:http2, for requests with httpVersion 2: ours are HTTP/1.1;
//  - https-proxy-agent (with node:assert and debug), for https requests through a proxy only;
//  - node:https (with node:tls), for https URLs only: a runner on loopback is plain http.
// So in our bundles they get stand-ins that load the real module on first use: same behaviour, cost only when used.
// (The stand-ins of modules that CommonJS code requires are CommonJS themselves: `require()` gets the object.)
const ON_DEMAND = {
  'form-data': [
    'let Real;',
    '// `new FormData()` gives the real form-data object (a constructor that returns an object yields that object)',
    "export default function FormData(...args) { Real ??= require('form-data'); return new Real(...args); }",
  ],
  http2: [
    'let real;',
    "const load = () => (real ??= require('node:http2'));",
    'export default new Proxy({}, { get: (_, key) => load()[key], has: (_, key) => key in load() });',
  ],
  https: [
    'let real;',
    "const load = () => (real ??= require('node:https'));",
    'module.exports = new Proxy({}, { get: (_, key) => load()[key], has: (_, key) => key in load() });',
  ],
  'https-proxy-agent': [
    'let Real;',
    "const load = () => (Real ??= require('https-proxy-agent'));",
    '// `new HttpsProxyAgent(options)` gives the real agent; `agent instanceof HttpsProxyAgent` asks the real class',
    'export default function HttpsProxyAgent(...args) { const R = load(); return new R(...args); }',
    'Object.defineProperty(HttpsProxyAgent, Symbol.hasInstance, { value: (value) => value instanceof load() });',
  ],
};
const axiosImportsOnDemand = {
  name: 'axios-imports-on-demand',
  setup(build) {
    build.onResolve({ filter: /^(form-data|http2|https|https-proxy-agent)$/ }, (args) =>
      args.namespace === 'file' && /[\\/]node_modules[\\/](axios|follow-redirects)[\\/]/.test(args.importer)
        ? { path: args.path, namespace: 'kernel-runner-on-demand', pluginData: { resolveDir: args.resolveDir } }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'kernel-runner-on-demand' }, (args) => ({
      contents: ON_DEMAND[args.path].join('\n'),
      loader: 'js',
      resolveDir: args.pluginData.resolveDir,
    }));
  },
};

// Sources are ESM and may use import.meta.url; the Node bundles are CommonJS (VS Code requires the extension),
// so import.meta.url is rebuilt from __filename.
const nodeCommon = {
  plugins: [axiosWithoutFetch, axiosImportsOnDemand],
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
  metafile: true,
  define: { 'import.meta.url': '__kr_import_meta_url' },
  banner: { js: "const __kr_import_meta_url = require('url').pathToFileURL(__filename).href;" },
  // Optional native/dev-only modules never enter a bundle.
  external: ['vscode', 'better-sqlite3', '@duckdb/node-api'],
  // jsonc-parser's `main` is a UMD build whose require()s esbuild cannot follow; its ESM build bundles.
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
};

const builds = [
  {
    ...nodeCommon,
    entryPoints: { extension: join(root, 'src/extension/main.ts') },
    outdir: join(root, 'dist'),
    outExtension: { '.js': '.cjs' },
  },
  // The CLI: a small launcher (the `kernel-runner` bin) that loads the bundle with V8's code cache, and the bundle
  // itself, always minified (about half the bytes to read and compile on a cache miss; names kept for errors).
  {
    ...nodeCommon,
    entryPoints: { cli: join(root, 'src/cli/launcher.ts') },
    outdir: join(root, 'dist'),
    outExtension: { '.js': '.cjs' },
    sourcemap: false,
    banner: { js: '#!/usr/bin/env node\n' + nodeCommon.banner.js },
  },
  {
    ...nodeCommon,
    entryPoints: { 'cli-main': join(root, 'src/cli/main.ts') },
    outdir: join(root, 'dist'),
    outExtension: { '.js': '.cjs' },
    sourcemap: true,
    minify: true,
    keepNames: true,
  },
  // The trace toolkit's worker thread (src/trace/parallelKernelTrace.ts looks for it beside the bundle that loads it).
  {
    ...nodeCommon,
    entryPoints: { 'trace-worker': join(root, 'src/trace/kernelTraceWorker.ts') },
    outdir: join(root, 'dist'),
    outExtension: { '.js': '.cjs' },
    sourcemap: false,
    minify: true,
  },
  // A finished profile's summary for the runner, in a worker thread with time and memory limits (src/runner/boundedSummary.ts).
  {
    ...nodeCommon,
    entryPoints: { 'summary-worker': join(root, 'src/runner/summaryWorker.ts') },
    outdir: join(root, 'dist'),
    outExtension: { '.js': '.cjs' },
    sourcemap: false,
    minify: true,
  },
  {
    bundle: true,
    platform: 'browser',
    target: 'es2022',
    format: 'iife',
    sourcemap: !production,
    minify: production,
    logLevel: 'warning',
    metafile: true,
    entryPoints: { webview: join(root, 'src/webview/main.ts'), compare: join(root, 'src/webview/compareMain.ts') },
    outdir: join(root, 'dist'),
  },
].filter((b) => Object.values(b.entryPoints).every((p) => existsSync(p)));

mkdirSync(join(root, 'dist'), { recursive: true });
// sql.js reads rocpd databases in every runtime (no native module): ship its WASM beside the bundles.
cpSync(require.resolve('sql.js/dist/sql-wasm.wasm'), join(root, 'dist/sql-wasm.wasm'));

if (watch) {
  for (const b of builds) (await esbuild.context(b)).watch();
} else {
  const results = await Promise.all(builds.map((b) => esbuild.build(b)));
  writeBundledPackages(results);
  if (existsSync(join(root, 'dist/cli.cjs'))) chmodSync(join(root, 'dist/cli.cjs'), 0o755);
  // the launcher has no map (the bundle, dist/cli-main.cjs, has one): drop one left by older builds
  rmSync(join(root, 'dist/cli.cjs.map'), { force: true });
}

/** dist/bundled-packages.json: every npm package whose code a bundle holds, with the bundles that hold it. The
 * bundles need no node_modules at run time, so these are the package's real dependencies (package.json lists them
 * as devDependencies: an install of the packed CLI fetches nothing); test/integration/package-engines.test.ts
 * holds their engines to ours. With it, dist/third-party-notices.txt: each one's license, which the packages that
 * ship the bundles (the .vsix, npm pack) carry beside them. */
function writeBundledPackages(results) {
  const packages = new Map();
  for (const { metafile } of results) {
    for (const [output, { inputs }] of Object.entries(metafile.outputs)) {
      for (const input of Object.keys(inputs)) {
        const dir = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1];
        if (!dir || input.includes(':')) continue;
        const path = relative(root, resolve(dir)).split('\\').join('/');
        if (!packages.has(path)) {
          const manifest = JSON.parse(readFileSync(join(root, path, 'package.json'), 'utf8'));
          // older packages give `licenses: [{ type }]`
          const license = manifest.license ?? manifest.licenses?.map((l) => l.type).join(' OR ');
          packages.set(path, { name: manifest.name, version: manifest.version, license, path, bundles: new Set() });
        }
        packages.get(path).bundles.add(basename(output));
      }
    }
  }
  const list = [...packages.values()]
    .sort((a, b) => a.path.localeCompare(b.path))
    .map((p) => ({ ...p, bundles: [...p.bundles].sort() }));
  writeFileSync(join(root, 'dist/bundled-packages.json'), JSON.stringify(list, null, 2) + '\n');
  writeFileSync(join(root, 'dist/third-party-notices.txt'), thirdPartyNotices(list));
}

function thirdPartyNotices(list) {
  const rule = '='.repeat(80);
  const seen = new Set();
  const parts = [
    'Kernel Runner bundles the code of the packages below into dist/ (its CLI, runner, extension and webviews).\n' +
      'Their licenses follow, as each package ships them.\n',
  ];
  for (const p of list) {
    const id = `${p.name}@${p.version}`;
    if (seen.has(id)) continue;
    seen.add(id);
    const dir = join(root, p.path);
    const file = readdirSync(dir).find((f) => /^(licen[cs]e|copying)([.-].*)?$/i.test(f));
    const text = file
      ? readFileSync(join(dir, file), 'utf8').trim()
      : `(the package has no license file; its package.json names the license ${p.license ?? 'UNKNOWN'})`;
    parts.push(`${rule}\n${p.name} ${p.version} (${p.license ?? 'UNKNOWN'})\n${rule}\n${text}\n`);
  }
  return parts.join('\n');
}
