import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { activateExtension, EXTENSION_ID, repoRoot } from './helpers';

describe('activation', () => {
  it('activates and registers every contributed command', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, 'the extension is installed');
    const wasActive = ext.isActive;
    const t0 = performance.now();
    const api = await activateExtension();
    const wallMs = performance.now() - t0;
    assert.ok(ext.isActive);
    const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
      contributes: { commands: { command: string }[] };
    };
    const contributed = manifest.contributes.commands.map((c) => c.command);
    assert.ok(contributed.length >= 10, 'the manifest contributes the commands');
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = contributed.filter((c) => !registered.has(c));
    assert.deepEqual(missing, []);
    assert.ok(typeof api.activationMs === 'number' && api.activationMs >= 0);
    const metrics = { activateMs: api.activationMs, loadAndActivateMs: wasActive ? null : Math.round(wallMs) };
    console.log(`[kernel-runner] activation: ${JSON.stringify(metrics)}`);
    if (process.env.KR_TEST_OUTPUT)
      writeFileSync(join(process.env.KR_TEST_OUTPUT, 'extension-metrics.json'), JSON.stringify(metrics) + '\n');
  });

  it('never activates on "*" and declares every setting with a description', () => {
    const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
      activationEvents: string[];
      contributes: {
        configuration: { properties: Record<string, { description?: string; markdownDescription?: string }> };
      };
    };
    assert.ok(!manifest.activationEvents.includes('*'));
    for (const [key, prop] of Object.entries(manifest.contributes.configuration.properties)) {
      assert.ok(prop.description || prop.markdownDescription, `${key} has a description`);
    }
    assert.equal(vscode.workspace.getConfiguration('kernelRunner').get('server'), '');
  });
});
