import type { ServerResponse } from 'node:http';
import { KernelRunnerError, type RunnerErrorCode } from '../../core/errors';

/** An answer with an HTTP status and upstream's `{detail}` body. */
export class HttpError extends KernelRunnerError {
  override readonly name: string = 'HttpError';
  readonly code: RunnerErrorCode = 'RUNNER_HTTP';
  readonly type = 'http' as const;
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    ...headers,
  });
  res.end(text);
}

export function sendError(res: ServerResponse, err: HttpError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, err.status, { detail: err.detail }, err.headers);
}
