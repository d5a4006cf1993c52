// The runner client (Node only: the CLI and the VS Code extension host). See client.ts.
export { createRunnerClient } from './client';
export type { RunnerClient } from './client';
export { RunnerClientError, isRunnerClientError } from './errors';
export type { ClientEvent } from './events';
export type { StreamOutcome } from './follow';
