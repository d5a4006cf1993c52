// package.json's walkthrough (VS Code's Getting Started): every step's buttons run commands that exist (ours are
// contributed; VS Code's are the few named here), every completion event is one VS Code fires for something real
// (a contributed command run, the context key the results panel sets), and every step's page is a file that ships
// (media/, which .vscodeignore keeps). The installed .vsix runs one step in real VS Code (test/vscode/installed.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROFILE_SHOWN_CONTEXT } from '../../../src/extension/commandIds';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
interface Step {
  id: string;
  title: string;
  description: string;
  media: { markdown?: string; image?: string };
  completionEvents: string[];
}
const manifest = JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8')) as {
  contributes: {
    commands: Array<{ command: string }>;
    views: Record<string, Array<{ id: string }>>;
    walkthroughs: Array<{ id: string; steps: Step[] }>;
  };
};
const contributed = new Set(manifest.contributes.commands.map((c) => c.command));
// VS Code's own commands the steps use, and the focus command VS Code makes for each contributed view
const vscodeCommands = new Set([
  'workbench.action.openSettings',
  ...Object.values(manifest.contributes.views).flatMap((views) => views.map((v) => `${v.id}.focus`)),
]);
const [walkthrough] = manifest.contributes.walkthroughs;
const steps = walkthrough?.steps ?? [];

test('the walkthrough takes a person from a target to a comparison', () => {
  assert.equal(manifest.contributes.walkthroughs.length, 1);
  assert.deepEqual(
    steps.map((s) => s.id),
    ['target', 'example', 'run', 'profile', 'results', 'compare'],
  );
});

test("each step's buttons run a command that exists", () => {
  for (const step of steps) {
    const links = [...step.description.matchAll(/\]\(command:([\w.]+)(\?[^)]*)?\)/g)].map((m) => m[1]!);
    assert.ok(links.length > 0, `${step.id} has a button`);
    for (const id of links) assert.ok(contributed.has(id) || vscodeCommands.has(id), `${step.id}: ${id}`);
  }
});

test("each step's completion events are fired by something real", () => {
  for (const step of steps) {
    assert.ok(step.completionEvents.length > 0, `${step.id} can be completed`);
    for (const event of step.completionEvents) {
      const [kind, what] = event.split(/:(.*)/s) as [string, string];
      if (kind === 'onCommand') assert.ok(contributed.has(what), `${step.id}: ${event} names a contributed command`);
      else if (kind === 'onContext') assert.equal(what, PROFILE_SHOWN_CONTEXT, `${step.id}: ${event}`);
      else assert.fail(`${step.id}: ${event} is not an event this walkthrough checks`);
    }
  }
  // the buttons' own commands complete their steps (a step whose button does not tick it off would stay open)
  for (const step of steps.filter((s) => s.id !== 'results')) {
    const first = /\]\(command:([\w.]+)/.exec(step.description)![1]!;
    assert.ok(step.completionEvents.includes(`onCommand:${first}`), `${step.id}: its first button completes it`);
  }
});

test("each step's page is a markdown file under media/walkthrough/, and its images are in media/", () => {
  for (const step of steps) {
    const md = step.media.markdown ?? '';
    assert.ok(md.startsWith('media/walkthrough/') && md.endsWith('.md'), `${step.id}: ${md}`);
    const file = path.join(repo, md);
    assert.ok(existsSync(file), md);
    for (const [, src] of readFileSync(file, 'utf8').matchAll(/!\[[^\]]*\]\(([^)]+)\)/g))
      assert.ok(existsSync(path.resolve(path.dirname(file), src!)), `${md}: ${src}`);
  }
});
