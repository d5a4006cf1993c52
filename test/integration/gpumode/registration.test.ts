// Registration end to end against the contract server: /auth/init, the browser's visit to the OAuth callback,
// the cli_id in ~/.popcorn.yaml, 401 before the sign-in and after a reset, with the core API and the real CLI.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { completeOAuthInBrowser, startContractServer } from '../../contract/gpumodeServer';
import {
  checkRegistration,
  completeRegistration,
  decodeRegistrationState,
  openGpuMode,
  startRegistration,
  GpuModeError,
} from '../../../src/core/gpumode/index';
import { ensureBuilt, tempHome } from './helpers';

before(() => ensureBuilt());

test('core: register, sign in (browser), check; re-register with reset retires the old id', async (t) => {
  const server = await startContractServer();
  t.after(() => server.close());
  const home = tempHome(t, server.url);

  assert.deepEqual(await checkRegistration({ baseUrl: server.url, configPath: home.config }), {
    state: 'missing',
    configPath: home.config,
    message: `No GPU MODE cli_id in ${home.config}. To register, run \`kernel-runner register discord\` (or \`kernel-runner register github\`).`,
  });

  const started = await startRegistration({ baseUrl: server.url, provider: 'discord', reset: false });
  assert.equal(
    decodeRegistrationState(new URL(started.authorizeUrl).searchParams.get('state') ?? '').cli_id,
    started.cliId,
  );
  assert.ok(started.authorizeUrl.startsWith('https://discord.com/oauth2/authorize?client_id='));
  await completeRegistration(started.cliId, { configPath: home.config });
  assert.equal(readFileSync(home.config, 'utf8'), `cli_id: ${started.cliId}\n`);

  // before the browser sign-in the service does not know the id
  const early = await checkRegistration({ baseUrl: server.url, configPath: home.config });
  assert.equal(early.state, 'unregistered');
  assert.match(
    early.state === 'unregistered' ? early.message : '',
    /does not recognise this cli_id \(401\).*GET http:\/\/127\.0\.0\.1:\d+\/user\/submissions\?limit=1.*register discord --reset/,
  );
  assert.doesNotMatch(early.state === 'unregistered' ? early.message : '', new RegExp(started.cliId));

  const callback = await completeOAuthInBrowser(started.authorizeUrl, 'alice');
  assert.equal(callback.status, 200, callback.body);
  assert.equal((await checkRegistration({ baseUrl: server.url, configPath: home.config })).state, 'ok');
  const lastCheck = server.requests.at(-1);
  assert.equal(lastCheck?.path, '/user/submissions?limit=1');
  assert.equal(lastCheck?.cliId, started.cliId);

  // a plain second registration of the same account is refused; a reset links a new id and retires the old one
  const again = await startRegistration({ baseUrl: server.url, provider: 'discord', reset: false });
  assert.equal((await completeOAuthInBrowser(again.authorizeUrl, 'alice')).status, 400);
  const reset = await startRegistration({ baseUrl: server.url, provider: 'discord', reset: true });
  assert.equal(decodeRegistrationState(new URL(reset.authorizeUrl).searchParams.get('state') ?? '').is_reset, true);
  assert.equal((await completeOAuthInBrowser(reset.authorizeUrl, 'alice')).status, 200);
  assert.equal((await checkRegistration({ baseUrl: server.url, cliId: reset.cliId })).state, 'ok');
  assert.equal((await checkRegistration({ baseUrl: server.url, cliId: started.cliId })).state, 'unregistered');

  // a session without a cli_id says what to run
  await assert.rejects(
    openGpuMode({ baseUrl: server.url, configPath: `${home.dir}/none.yaml` }),
    (e: unknown) => e instanceof GpuModeError && e.type === 'no-identity',
  );
});

test('CLI: `register github` prints the URL, saves cli_id keeping other keys, waits for the browser sign-in', async (t) => {
  const server = await startContractServer();
  t.after(() => server.close());
  const home = tempHome(t, server.url);
  writeFileSync(home.config, '# shared with popcorn-cli\nfavourite_gpu: MI300\n');
  let signedIn: Promise<{ status: number }> | undefined;
  const run = await home.cli(['register', 'github', '--no-browser', '--timeout', '60'], {
    onStdout(text) {
      const url = /https:\/\/github\.com\/login\/oauth\/authorize\?\S+/.exec(text)?.[0];
      // the browser: once the id is saved, the user signs in
      if (url && !signedIn && text.includes('Saved the new cli_id')) signedIn = completeOAuthInBrowser(url, 'bob');
    },
  });
  assert.equal(run.code, 0, run.stderr + run.stdout);
  assert.ok(signedIn, run.stdout);
  assert.equal((await signedIn).status, 200);
  assert.match(run.stdout, /Registering with GPU MODE \(http:\/\/127\.0\.0\.1:\d+\) via GitHub/);
  assert.match(
    run.stdout,
    /client_id=Ov23lieFd2onYk4OnKIR&state=[A-Za-z0-9_-]+&redirect_uri=http%3A%2F%2F127\.0\.0\.1%3A\d+%2Fauth%2Fcli%2Fgithub/,
  );
  assert.match(run.stdout, /Registered: GPU MODE accepts this cli_id/);
  const config = readFileSync(home.config, 'utf8');
  assert.match(config, /^# shared with popcorn-cli\nfavourite_gpu: MI300\ncli_id: [0-9a-f-]{36}\n$/);

  // the id works for the other commands
  const list = await home.cli(['submissions', 'list']);
  assert.equal(list.code, 0, list.stderr);
  assert.equal(list.stdout, 'No submissions found.\n');
});

test('CLI: an unknown provider is bad input; --no-wait returns at once', async (t) => {
  const server = await startContractServer();
  t.after(() => server.close());
  const home = tempHome(t, server.url);
  const bad = await home.cli(['register', 'gitlab', '--no-browser']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /register takes discord or github, not "gitlab"/);
  const quick = await home.cli(['register', '--no-browser', '--no-wait']);
  assert.equal(quick.code, 0, quick.stderr);
  assert.match(quick.stdout, /via Discord/);
  assert.match(readFileSync(home.config, 'utf8'), /^cli_id: [0-9a-f-]{36}\n$/);
  // not signed in: the next call explains the 401 and how to register again
  const list = await home.cli(['submissions', 'list']);
  assert.equal(list.code, 1);
  assert.match(
    list.stderr,
    /GPU MODE does not recognise this cli_id \(401\) \(Invalid or unauthorized auth header\): GET http:\/\/127\.0\.0\.1:\d+\/user\/submissions\?limit=20\. To register again, run `kernel-runner register discord --reset`/,
  );
  const id = /cli_id: (\S+)/.exec(readFileSync(home.config, 'utf8'))?.[1] ?? '';
  assert.ok(!list.stderr.includes(id), 'the cli_id is never printed');
});
