// src/extension/commandIds.ts and package.json name the same commands: every contributed command is a CommandId
// (and no other), and every command the manifest refers to (menus, the views' welcome links) is one of them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMMAND_PREFIX, CONTRIBUTED_COMMANDS, INTERNAL_COMMANDS, commandId } from '../../../src/extension/commandIds';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
interface Manifest {
  contributes: {
    commands: Array<{ command: string }>;
    menus: Record<string, Array<{ command?: string; submenu?: string }>>;
    viewsWelcome?: Array<{ contents: string }>;
  };
}
const manifest = JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8')) as Manifest;
const contributed = manifest.contributes.commands.map((c) => c.command);

test("CONTRIBUTED_COMMANDS is package.json's contributes.commands, in its order", () => {
  assert.deepEqual(CONTRIBUTED_COMMANDS.map(commandId), contributed);
  assert.equal(new Set(contributed).size, contributed.length, 'a command is contributed twice');
});

test('the internal commands are registered ids that the manifest does not contribute', () => {
  assert.deepEqual(INTERNAL_COMMANDS.map(commandId), ['kernelRunner.jobMenu']);
  for (const name of INTERNAL_COMMANDS) assert.ok(!contributed.includes(commandId(name)), `${name} is contributed`);
});

test('commandId prefixes the name', () => {
  assert.equal(COMMAND_PREFIX, 'kernelRunner');
  assert.equal(commandId('showOutput'), 'kernelRunner.showOutput');
  assert.equal(commandId('runs.open'), 'kernelRunner.runs.open');
});

test('every command the manifest refers to is contributed', () => {
  const referred = Object.values(manifest.contributes.menus).flatMap((items) =>
    items.flatMap((i) => (i.command ? [i.command] : [])),
  );
  const links = (manifest.contributes.viewsWelcome ?? []).flatMap((w) =>
    [...w.contents.matchAll(/\(command:([^)?\s]+)/g)].map((m) => m[1] as string),
  );
  assert.ok(referred.length >= 10, `only ${referred.length} menu entries found`);
  assert.ok(links.length >= 1, 'no command link in the views welcome found');
  const known = new Set(contributed);
  assert.deepEqual(
    [...referred, ...links].filter((c) => !known.has(c)),
    [],
  );
});
