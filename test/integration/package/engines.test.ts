// engines tell the truth. The CLI, runner and extension are bundles (scripts/build.mjs): what runs is the code of
// the packages dist/bundled-packages.json lists, so each of those must claim every Node that ours claims, and ours
// must cover the Node that the oldest VS Code of engines.vscode runs extensions on. The rest of the lock (tools)
// must accept this machine's Node: that is npm ci's EBADENGINE check, made a test.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { ensureBuiltWith, repoRoot } from '../submit/helpers';

interface Manifest {
  name?: string;
  version?: string;
  engines?: { node?: string; vscode?: string } | string[];
}
const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;
/** A package's engines.node (old packages wrote engines as a list, which npm does not check). */
const nodeRange = (m: Manifest): string | undefined => (Array.isArray(m.engines) ? undefined : m.engines?.node);
const ours = readJson<{ engines: { node: string; vscode: string } }>(path.join(repoRoot, 'package.json'));
const bundledList = path.join(repoRoot, 'dist/bundled-packages.json');

/** The Node each VS Code release (major.minor) runs extensions on: Electron 34's Node 20.18 for 1.100. */
const vscodeNode: Record<string, string> = { '1.100': '20.18.0' };

before(() => ensureBuiltWith('dist/bundled-packages.json', 'dist/third-party-notices.txt'));

test('our engines.node covers the Node of the oldest VS Code that engines.vscode accepts', () => {
  const oldest = semver.minVersion(ours.engines.vscode!)!;
  const node = vscodeNode[`${oldest.major}.${oldest.minor}`];
  assert.ok(node, `the Node of VS Code ${oldest.major}.${oldest.minor} is named here`);
  assert.ok(semver.satisfies(node, ours.engines.node!), `VS Code's Node ${node} satisfies ${ours.engines.node}`);
});

test('every package a bundle holds claims every Node our engines.node claims', () => {
  const bundled = readJson<Array<{ name: string; version: string; path: string; bundles: string[] }>>(bundledList);
  const names = bundled.map((p) => p.name);
  // the list is the bundles' real content: the libraries the CLI, runner and extension are built on are in it
  for (const name of ['axios', 'commander', 'zod', '@modelcontextprotocol/sdk', 'sql.js', 'yauzl']) {
    assert.ok(names.includes(name), `${name} is bundled`);
  }
  const refused: string[] = [];
  for (const p of bundled) {
    const manifest = readJson<Manifest>(path.join(repoRoot, p.path, 'package.json'));
    assert.equal(`${manifest.name}@${manifest.version}`, `${p.name}@${p.version}`, 'the installed package was bundled');
    const theirs = nodeRange(manifest);
    if (theirs && !semver.subset(ours.engines.node!, theirs)) refused.push(`${p.name}@${p.version} (${theirs})`);
  }
  assert.deepEqual(refused, [], `bundled packages that do not run on every Node ${ours.engines.node}`);
});

test("every installed package of the lock accepts this machine's Node (npm ci warns EBADENGINE otherwise)", () => {
  const lock = readJson<{ packages: Record<string, { optional?: boolean }> }>(path.join(repoRoot, 'package-lock.json'));
  const refused: string[] = [];
  let checked = 0;
  for (const [where, entry] of Object.entries(lock.packages)) {
    if (!where) continue; // the root: ours
    const manifestFile = path.join(repoRoot, where, 'package.json');
    if (!existsSync(manifestFile)) {
      assert.ok(entry.optional, `${where} is installed (only optional packages of other platforms may be absent)`);
      continue;
    }
    const theirs = nodeRange(readJson<Manifest>(manifestFile));
    checked++;
    if (theirs && !semver.satisfies(process.version, theirs, { includePrerelease: true })) {
      refused.push(`${where} (${theirs})`);
    }
  }
  assert.ok(checked > 100, `the lock's packages were read (${checked})`);
  assert.deepEqual(refused, [], `packages that refuse Node ${process.version}`);
});

test('every package a bundle holds names its license, and the notices shipped beside the bundles carry it', () => {
  const bundled = readJson<Array<{ name: string; version: string; license?: string }>>(bundledList);
  const notices = readFileSync(path.join(repoRoot, 'dist/third-party-notices.txt'), 'utf8');
  const unnamed = bundled.filter((p) => !p.license).map((p) => p.name);
  assert.deepEqual(unnamed, [], 'bundled packages with no license named');
  const missing = bundled
    .filter((p) => !notices.includes(`\n${p.name} ${p.version} (${p.license})\n`))
    .map((p) => p.name);
  assert.deepEqual(missing, [], 'bundled packages missing from dist/third-party-notices.txt');
  // a package's own license text, not only its name: axios ships its LICENSE file
  const axios = notices.slice(notices.indexOf('\naxios '));
  assert.match(axios.slice(0, 2000), /Permission is hereby granted/);
});
