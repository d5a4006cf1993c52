// `kernel-runner mcp --server gpumode` against the GPU MODE contract server (test/contract), driven by the MCP
// SDK's client: leaderboards, a test submission on the background route, a profile on the streaming route with
// its digest, and the user's cli_id never in an answer or progress message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { contractSetup, ensureBuilt, repoRoot } from './helpers';
import { mcpSession } from '../mcpSession';

const SOLUTION = '#!POPCORN leaderboard amd-fp8-mm\n#!POPCORN gpu MI300\n\ndef custom_kernel(data):\n    return data\n';
const schemaCheck = new Ajv({ allErrors: true, strict: true }).compile(
  JSON.parse(readFileSync(path.join(repoRoot, 'docs/digest.schema.json'), 'utf8')),
);

test('GPU MODE through the MCP server: leaderboards, test, profile with a digest; the cli_id never shown', async (t) => {
  ensureBuilt();
  const { server, home, file } = await contractSetup(t);
  const cliId = server.registeredId('alice');
  const s = await mcpSession(home.dir, ['--server', 'gpumode', '--out', path.join(home.dir, 'out')], {
    HOME: home.dir,
    USERPROFILE: home.dir,
    POPCORN_API_URL: server.url,
    KERNEL_RUNNER_POLL_MS: '50',
    KERNEL_RUNNER_TOKEN: '',
  });
  try {
    const boards = await s.call('list_leaderboards', {});
    assert.equal(boards.isError, false, boards.text);
    assert.ok(boards.json.leaderboards.some((b: { name: string }) => b.name === 'amd-fp8-mm'));
    const tested = await s.call('submit', { file: path.join(home.dir, file('submission.py', SOLUTION)), mode: 'test' });
    assert.equal(tested.isError, false, tested.text);
    assert.equal(tested.json.passed, true, tested.text);
    assert.deepEqual(tested.json.target, { leaderboard: 'amd-fp8-mm', gpu: 'MI300' });
    const profiled = await s.call('submit', { code: SOLUTION, file_name: 'submission.py', mode: 'profile' });
    assert.equal(profiled.isError, false, profiled.text);
    assert.ok(profiled.json.digest, profiled.text);
    assert.ok(schemaCheck(profiled.json.digest), JSON.stringify(schemaCheck.errors));
    assert.equal(profiled.json.digest.provenance.configuration.values.server, 'GPU MODE');
    assert.ok(s.seen.length > 3);
    for (const text of s.seen) assert.ok(!text.includes(cliId), `the cli_id is in: ${text.slice(0, 300)}`);
  } finally {
    await s.close();
  }
});
