// The runner serves exactly the routes of the protocol's one table (src/core/protocol/routes.ts): every route of the
// table is registered and answered by its own handler (not the router's 404/405), nothing else is registered, and
// the clients' paths are built from the same table.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ROUTES, routePath, type RouteName } from '../../../src/core/protocol/routes';
import { routes } from '../../../src/core/protocol/api';
import { createRoutes, type RouteServices } from '../../../src/runner/routes';
import { startTestRunner, type TestRunner } from './helpers';

const table = Object.values(ROUTES).map((r) => `${r.method} ${r.pattern}`);

test('the runner registers the table, in full and nothing more', () => {
  // the handlers are not called: the registration alone is compared
  const registered = createRoutes({} as RouteServices).list();
  assert.deepEqual([...registered].sort(), [...table].sort());
  assert.equal(new Set(registered).size, registered.length, 'a route registered twice');
});

test("the clients' paths come from the table, parameters encoded", () => {
  assert.equal(routes.gpus('a b/c'), '/gpus/a%20b%2Fc');
  assert.equal(routes.submit('vectoradd_py', 'MI300', 'profile'), '/vectoradd_py/MI300/profile');
  assert.equal(routes.submitBackground('vectoradd_py', 'MI300', 'test'), '/submission/vectoradd_py/MI300/test');
  assert.equal(routes.jobEvents(7, 12), '/jobs/7/events?after=12');
  assert.equal(routes.jobEvents(7), '/jobs/7/events');
  assert.equal(routes.artifact(3, 'x y.zip'), '/jobs/3/artifacts/x%20y.zip');
  assert.equal(routes.userSubmissions({ leaderboard: 'v', limit: 5 }), '/user/submissions?leaderboard=v&limit=5');
  assert.equal(routes.authInit('discord'), '/auth/init?provider=discord');
  assert.equal(
    routePath('rankedSubmissions', { leaderboard: 'v', gpu: 'CPU' }, { offset: 2 }),
    '/submissions/v/CPU?offset=2',
  );
});

describe('over HTTP', () => {
  let runner: TestRunner;
  before(async () => {
    runner = await startTestRunner({ token: '' });
  });
  after(() => runner.dispose());

  const params = { leaderboard: 'vectoradd_py', gpu: 'CPU', mode: 'test', id: 987654, name: 'none.zip' };

  for (const name of Object.keys(ROUTES) as RouteName[]) {
    const { method, pattern } = ROUTES[name];
    test(`${method} ${pattern} is answered by its handler`, async () => {
      const res = await fetch(`${runner.url}${routePath(name, params as never)}`, {
        method,
        ...(method === 'POST' ? { body: new FormData() } : {}),
      });
      const text = await res.text();
      assert.notEqual(res.status, 405, text);
      // the router's own 404 says only "Not Found"; a handler's 404 names what it did not find
      assert.ok(
        !(res.status === 404 && JSON.parse(text).detail === 'Not Found'),
        `${method} ${pattern}: the router's 404`,
      );
    });
  }

  test('a path or method outside the table is the router 404 / 405', async () => {
    const missing = await fetch(`${runner.url}/no/such/route/here/at/all`);
    assert.equal(missing.status, 404);
    assert.deepEqual(await missing.json(), { detail: 'Not Found' });
    const wrongMethod = await fetch(`${runner.url}/health`, { method: 'PUT' });
    assert.equal(wrongMethod.status, 405);
    assert.equal(wrongMethod.headers.get('allow'), 'GET');
    await wrongMethod.text();
  });
});
