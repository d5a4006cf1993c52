// The runner client: one object per server (our runner, an embedded one, or GPU MODE's service) speaking the
// GPU MODE submission API plus Kernel Runner's additive extensions.
import {
  backgroundAcceptedSchema,
  cancelAnswerSchema,
  deleteSubmissionSchema,
  gpuListSchema,
  healthSchema,
  jobRecordSchema,
  leaderboardListSchema,
  rankedSubmissionListSchema,
  routes,
  runnerQueueSchema,
  userSubmissionDetailSchema,
  userSubmissionListSchema,
  type BackgroundAccepted,
  type CancelAnswer,
  type DeleteSubmissionAnswer,
  type Health,
  type JobRecord,
  type Leaderboard,
  type RankedSubmission,
  type RunnerQueue,
  type SubmissionMode,
  type UserSubmissionDetail,
  type UserSubmissionSummary,
} from '../protocol/api';
import { downloadToFile, type DownloadOptions, type DownloadResult } from './download';
import { followEvents, openEvents, type Cursor, type FollowOptions, type StreamOutcome } from './follow';
import { createTransport, type TransportOptions } from './http';
import { multipartFile } from './multipart';
import { profileFormFields, type ProfileOptions } from '../profileOptions';
import { CANCEL_TIMEOUT_MS } from '../limits';

export type RunnerClientOptions = TransportOptions;

interface SubmissionFile {
  /** File name sent with the upload (the server keeps it; its extension matters). */
  name: string;
  content: Uint8Array | string;
}

interface SubmitRequest {
  leaderboard: string;
  gpu: string;
  mode: SubmissionMode;
  file: SubmissionFile;
  /** Profile mode's options, sent as form fields (our runner; core/profileOptions.ts). */
  profile?: ProfileOptions;
}

interface SubmitOptions extends FollowOptions {
  /** When `signal` aborts after the job id is known, DELETE /jobs/{id} on the way out. Default true. */
  cancelOnAbort?: boolean;
}

interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

type ArtifactRef = { jobId: number; name: string } | { url: string };

export interface RunnerClient {
  readonly baseUrl: string;
  health(options?: CallOptions): Promise<Health>;
  listLeaderboards(options?: CallOptions): Promise<Leaderboard[]>;
  listGpus(leaderboard: string, options?: CallOptions): Promise<string[]>;
  runnerQueue(gpu: string, options?: CallOptions): Promise<RunnerQueue>;
  rankedSubmissions(
    leaderboard: string,
    gpu: string,
    page?: { limit?: number; offset?: number },
    options?: CallOptions,
  ): Promise<RankedSubmission[]>;
  /** Streaming route: live events (with extensions), resumed after drops; resolves with the terminal event. */
  submit(request: SubmitRequest, options?: SubmitOptions): Promise<StreamOutcome>;
  /** Background route: 202 with the submission id (== job id on our runner). */
  submitBackground(request: SubmitRequest, options?: CallOptions): Promise<BackgroundAccepted>;
  /** Follows a job's events (extension route) from after `after` to the terminal event. */
  streamJob(jobId: number, options?: FollowOptions & { after?: number }): Promise<StreamOutcome>;
  getJob(jobId: number, options?: CallOptions): Promise<JobRecord>;
  /** DELETE /jobs/{id}; undefined when the runner answers 204. */
  cancel(jobId: number, options?: CallOptions): Promise<CancelAnswer | undefined>;
  downloadArtifact(ref: ArtifactRef, dest: string, options?: DownloadOptions): Promise<DownloadResult>;
  listSubmissions(
    query?: { leaderboard?: string; limit?: number; offset?: number },
    options?: CallOptions,
  ): Promise<UserSubmissionSummary[]>;
  getSubmission(id: number, options?: CallOptions): Promise<UserSubmissionDetail>;
  deleteSubmission(id: number, options?: CallOptions): Promise<DeleteSubmissionAnswer>;
}

/** The request body and header of an upload (the `file` form field, and profile options as fields beside it). */
function upload(file: SubmissionFile, profile?: ProfileOptions): { data: Buffer; headers: Record<string, string> } {
  const { body, contentType } = multipartFile(
    'file',
    file.name,
    file.content,
    profile ? profileFormFields(profile) : [],
  );
  return { data: body, headers: { 'Content-Type': contentType } };
}

const ARTIFACT_PATH = /^\/jobs\/\d+\/artifacts\/[^/]+$/;

/**
 * Where an artifact is fetched from. Our runner names its artifacts by the address it listens on (or its public
 * URL), which need not be the address this client reached it by (`localhost` vs `127.0.0.1`, a tunnel): a link to
 * our runner's own artifact route is fetched relative to the client's base URL, so the token goes with it. Other
 * links (GPU MODE's artifact hosts) are fetched as they are, without identity.
 */
function artifactTarget(ref: ArtifactRef, ourRunner: boolean): string {
  if (!('url' in ref)) return routes.artifact(ref.jobId, ref.name);
  if (!ourRunner) return ref.url;
  try {
    const u = new URL(ref.url);
    return ARTIFACT_PATH.test(u.pathname) ? `${u.pathname}${u.search}` : ref.url;
  } catch {
    return ref.url;
  }
}

export function createRunnerClient(options: RunnerClientOptions): RunnerClient {
  const transport = createTransport(options);
  const call = (o: CallOptions = {}) => ({ signal: o.signal, timeoutMs: o.timeoutMs });

  const client: RunnerClient = {
    baseUrl: transport.baseUrl,

    health: (o) => transport.json('GET', routes.health(), healthSchema, call(o)),
    listLeaderboards: (o) => transport.json('GET', routes.leaderboards(), leaderboardListSchema, call(o)),
    listGpus: (leaderboard, o) => transport.json('GET', routes.gpus(leaderboard), gpuListSchema, call(o)),
    runnerQueue: (gpu, o) => transport.json('GET', routes.runnerQueue(gpu), runnerQueueSchema, call(o)),
    rankedSubmissions: (leaderboard, gpu, page = {}, o) =>
      transport.json('GET', routes.rankedSubmissions(leaderboard, gpu, page), rankedSubmissionListSchema, call(o)),

    async submit(request, o = {}) {
      const path = routes.submit(request.leaderboard, request.gpu, request.mode);
      const cursor: Cursor = { jobId: undefined, lastEventId: 0 };
      try {
        return await followEvents(
          transport,
          {
            method: 'POST',
            open: () => transport.stream('POST', path, { ...upload(request.file, request.profile), signal: o.signal }),
          },
          cursor,
          o,
        );
      } catch (err) {
        if (
          o.signal?.aborted &&
          cursor.jobId !== undefined &&
          o.cancelOnAbort !== false &&
          options.extensions !== false
        ) {
          await client.cancel(cursor.jobId, { timeoutMs: CANCEL_TIMEOUT_MS }).catch(() => undefined);
        }
        throw err;
      }
    },

    submitBackground: (request, o) =>
      transport.json(
        'POST',
        routes.submitBackground(request.leaderboard, request.gpu, request.mode),
        backgroundAcceptedSchema,
        {
          ...call(o),
          ...upload(request.file, request.profile),
        },
      ),

    streamJob(jobId, o = {}) {
      const cursor: Cursor = { jobId, lastEventId: o.after ?? 0 };
      return followEvents(
        transport,
        { method: 'GET', open: () => openEvents(transport, cursor, o.signal), resumable: true },
        cursor,
        o,
      );
    },

    getJob: (jobId, o) => transport.json('GET', routes.job(jobId), jobRecordSchema, call(o)),
    cancel: (jobId, o) => transport.jsonOrEmpty('DELETE', routes.job(jobId), cancelAnswerSchema, call(o)),

    downloadArtifact(ref, dest, o) {
      return downloadToFile(transport, artifactTarget(ref, options.extensions !== false), dest, o);
    },

    listSubmissions: (query = {}, o) =>
      transport.json('GET', routes.userSubmissions(query), userSubmissionListSchema, call(o)),
    getSubmission: (id, o) => transport.json('GET', routes.userSubmission(id), userSubmissionDetailSchema, call(o)),
    deleteSubmission: (id, o) => transport.json('DELETE', routes.userSubmission(id), deleteSubmissionSchema, call(o)),
  };
  return client;
}
