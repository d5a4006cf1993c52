// The runner client (Node only: the CLI and the VS Code extension host). See client.ts.
export { createRunnerClient } from './client';
export type {
  ArtifactRef,
  CallOptions,
  RunnerClient,
  RunnerClientOptions,
  SubmissionFile,
  SubmitOptions,
  SubmitRequest,
} from './client';
export { InvalidRunnerUrlError, RunnerClientError, isRetryable, isRunnerClientError, type RunnerClientErrorType } from './errors';
export type { ClientEvent } from './events';
export type { FollowOptions, ReconnectInfo, StreamOutcome } from './follow';
export type { DownloadOptions, DownloadResult } from './download';
export { createSseReader, type SseReader, type SseReaderOptions } from './sse';
