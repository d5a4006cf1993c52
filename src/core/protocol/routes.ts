// The HTTP routes, once: method and path pattern (`:name` is one URI-encoded path segment). The runner registers
// exactly these (src/runner/routes.ts, test/unit/runner/routeTable.test.ts) and the clients build their paths from
// them (`routes` in ./api.ts). GPU MODE's routes come first, then the additive job routes of our runner.

export const ROUTES = {
  health: { method: 'GET', pattern: '/health' },
  leaderboards: { method: 'GET', pattern: '/leaderboards' },
  gpus: { method: 'GET', pattern: '/gpus/:leaderboard' },
  authInit: { method: 'GET', pattern: '/auth/init' },
  userJoin: { method: 'POST', pattern: '/user/join' },
  runnerQueue: { method: 'GET', pattern: '/runner_queue/:gpu' },
  rankedSubmissions: { method: 'GET', pattern: '/submissions/:leaderboard/:gpu' },
  /** Background route (202). */
  submitBackground: { method: 'POST', pattern: '/submission/:leaderboard/:gpu/:mode' },
  /** Streaming route (SSE). */
  submit: { method: 'POST', pattern: '/:leaderboard/:gpu/:mode' },
  userSubmissions: { method: 'GET', pattern: '/user/submissions' },
  userSubmission: { method: 'GET', pattern: '/user/submissions/:id' },
  deleteUserSubmission: { method: 'DELETE', pattern: '/user/submissions/:id' },
  job: { method: 'GET', pattern: '/jobs/:id' },
  cancelJob: { method: 'DELETE', pattern: '/jobs/:id' },
  jobEvents: { method: 'GET', pattern: '/jobs/:id/events' },
  artifact: { method: 'GET', pattern: '/jobs/:id/artifacts/:name' },
} as const satisfies Record<string, { method: 'GET' | 'POST' | 'DELETE'; pattern: string }>;

export type RouteName = keyof typeof ROUTES;

/** The `:name` parameters of a pattern, as a type: `'/jobs/:id/artifacts/:name'` -> `'id' | 'name'`. */
type ParamsOf<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamsOf<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;

export type RouteParams<R extends RouteName> = Record<ParamsOf<(typeof ROUTES)[R]['pattern']>, string | number>;

/** The query part: `?a=1&b=x`, parameters left out when undefined; '' when none. */
function queryString(params: Record<string, string | number | undefined>): string {
  const parts = Object.entries(params)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

/** A route's path with its parameters filled in (each URI-encoded) and an optional query. */
export function routePath<R extends RouteName>(
  route: R,
  params: RouteParams<R>,
  query: Record<string, string | number | undefined> = {},
): string {
  const values = params as Record<string, string | number>;
  const path = ROUTES[route].pattern.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(String(values[name])));
  return path + queryString(query);
}
