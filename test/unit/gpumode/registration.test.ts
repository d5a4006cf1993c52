import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  buildAuthorizeUrl,
  completeRegistration,
  decodeRegistrationState,
  encodeRegistrationState,
  GPUMODE_DEFAULT_URL,
} from '../../../src/core/gpumode/index';
import { defaultPopcornConfigPath, readPopcornConfig } from '../../../src/core/popcornConfig';

const ID = '3f2b8c1e-9a4d-4e7f-8b6a-0c1d2e3f4a5b';

test('state is base64url of {"cli_id","is_reset"} without padding, as popcorn-cli writes it', () => {
  const state = encodeRegistrationState(ID, false);
  assert.doesNotMatch(state, /[=+/]/);
  assert.equal(Buffer.from(state, 'base64url').toString('utf8'), `{"cli_id":"${ID}","is_reset":false}`);
  assert.deepEqual(decodeRegistrationState(encodeRegistrationState(ID, true)), { cli_id: ID, is_reset: true });
  // an id whose JSON length needs padding in standard base64 still has none
  const odd = encodeRegistrationState('a', true);
  assert.equal(Buffer.from(odd, 'base64url').toString(), '{"cli_id":"a","is_reset":true}');
  assert.doesNotMatch(odd, /=/);
  assert.throws(() => decodeRegistrationState('not base64!'), RangeError);
  assert.throws(() => decodeRegistrationState(Buffer.from('{"cli_id":1}').toString('base64url')), /cli_id/);
});

test("authorize URLs are exactly popcorn-cli's for the default service", () => {
  const state = encodeRegistrationState(ID, false);
  assert.equal(
    buildAuthorizeUrl('discord', state, GPUMODE_DEFAULT_URL),
    'https://discord.com/oauth2/authorize?client_id=1361364685491802243&response_type=code&redirect_uri=https%3A%2F%2Fsite--bot--dxfjds728w5v.code.run%2Fauth%2Fcli%2Fdiscord&scope=identify&state=' +
      state,
  );
  assert.equal(
    buildAuthorizeUrl('github', state, `${GPUMODE_DEFAULT_URL}/`),
    `https://github.com/login/oauth/authorize?client_id=Ov23lieFd2onYk4OnKIR&state=${state}&redirect_uri=https%3A%2F%2Fsite--bot--dxfjds728w5v.code.run%2Fauth%2Fcli%2Fgithub`,
  );
  // another base URL (POPCORN_API_URL) gets its own callback
  const other = new URL(buildAuthorizeUrl('github', state, 'http://127.0.0.1:4000'));
  assert.equal(other.searchParams.get('redirect_uri'), 'http://127.0.0.1:4000/auth/cli/github');
  assert.equal(other.searchParams.get('state'), state);
});

test('completeRegistration writes cli_id into ~/.popcorn.yaml (temp HOME) keeping every other key and comment', async (t) => {
  const home = mkdtempSync(path.join(tmpdir(), 'kr-home-'));
  const before = process.env.HOME;
  process.env.HOME = home;
  t.after(() => {
    process.env.HOME = before;
    rmSync(home, { recursive: true, force: true });
  });
  const file = defaultPopcornConfigPath();
  assert.equal(file, path.join(home, '.popcorn.yaml'));
  // first registration: a new file, private
  await completeRegistration(ID);
  assert.equal(readFileSync(file, 'utf8'), `cli_id: ${ID}\n`);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  // popcorn-cli (or the user) adds keys; a re-registration replaces only cli_id
  const original = `# popcorn settings\ntheme: dark   # keep me\ncli_id: ${ID}\nleaderboards:\n  - amd-fp8-mm\n`;
  writeFileSync(file, original);
  const second = 'a0b1c2d3-0000-4000-8000-123456789abc';
  const { path: written } = await completeRegistration(second);
  assert.equal(written, file);
  assert.equal(readFileSync(file, 'utf8'), original.replace(ID, second));
  assert.equal((await readPopcornConfig()).cliId, second);
});
