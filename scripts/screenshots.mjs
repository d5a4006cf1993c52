// The README's pictures, made by the real-VS-Code UI check that takes them (test/vscode/ui/k-readme-shots.ui.mjs:
// a profile's results panel at the half-window width it opens at, and the editor with the timing lens and heat),
// copied into media/ as screenshot-results.png and screenshot-editor.png. pngquant and optipng (Debian packages of
// those names), when there, make them small (a 256-colour palette: a UI picture loses nothing a reader sees);
// without them the pictures are copied as taken.
//
//   node scripts/screenshots.mjs
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const shots = { 'readme-results.png': 'screenshot-results.png', 'readme-editor.png': 'screenshot-editor.png' };
const output = join(root, '.test-output');

const check = spawnSync(
  process.execPath,
  [join(root, 'test/vscode/run.mjs'), '--only-ui', '--grep', 'k-readme-shots'],
  {
    stdio: 'inherit',
  },
);
if (check.status !== 0) {
  console.error(`screenshots: the UI check failed (exit ${check.status}); media/ is unchanged`);
  process.exit(1);
}
const has = (tool) => spawnSync(tool, ['--version'], { encoding: 'utf8' }).status === 0;
const [pngquant, optipng] = [has('pngquant'), has('optipng')];
if (!pngquant || !optipng)
  console.warn('screenshots: without pngquant and optipng the PNGs are kept larger than need be');
for (const taken of Object.keys(shots)) {
  const from = join(output, taken);
  if (!existsSync(from)) {
    console.error(`screenshots: the check passed but left no ${from} (a SKIPPED run?); media/ is unchanged`);
    process.exit(1);
  }
}
const run = (tool, args) => {
  const r = spawnSync(tool, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${tool} ${args.join(' ')}: exit ${r.status} ${r.stderr}`);
};
for (const [taken, kept] of Object.entries(shots)) {
  const from = join(output, taken);
  const to = join(root, 'media', kept);
  if (pngquant) run('pngquant', ['--force', '--strip', '--speed', '1', '256', '--output', to, from]);
  else copyFileSync(from, to);
  if (optipng) run('optipng', ['-quiet', '-o5', '-strip', 'all', to]);
  console.log(
    `media/${kept}: ${(statSync(to).size / 1024).toFixed(0)} KiB (taken: ${(statSync(from).size / 1024).toFixed(0)} KiB)`,
  );
}
