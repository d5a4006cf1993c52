// GPU MODE's public service as a target (vscode-free; used by the CLI and the extension):
// - target.ts       default base URL, POPCORN_API_URL, GPU MODE vs our runner
// - registration.ts register / re-register (OAuth via the browser), cli_id in ~/.popcorn.yaml, check it works
// - session.ts      a client carrying the cli_id
// - errors.ts       401 → re-register, 400 no id, 413, 429 + Retry-After, 400 detail, as one GpuModeError
// - leaderboards.ts leaderboards (deadline, closed, GPUs) and runner queue lines
// - preflight.ts    upload + directive checks before anything is sent (file:line)
// - poll.ts         background submissions: poll with states, heartbeats, Retry-After
// - results.ts      ranked score, secret runs, `+*` reports, job states in words, noise-free output
// - submissions.ts  "my submissions" rows
// - traces.ts       profile zips saved per run (never overwritten) and summarised
export * from './target';
export * from './errors';
export * from './registration';
export * from './session';
export * from './leaderboards';
export * from './poll';
export * from './preflight';
export * from './results';
export * from './submissions';
export * from './traces';
