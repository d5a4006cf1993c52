// The HTTP layer under the runner client: axios (Node's http adapter, so bodies can be streams), identity headers,
// and the mapping of every failure to one RunnerClientError.
import type { Readable } from 'node:stream';
import axios, { type AxiosResponse, type RawAxiosRequestHeaders } from 'axios';
import type { z } from 'zod';
import { isLoopbackHost } from '../loopback';
import { CLI_ID_HEADER, EXTENSIONS_HEADER } from '../protocol/api';
import {
  InvalidRunnerUrlError,
  RunnerClientError,
  displayUrl,
  parseRetryAfter,
  redact,
  type RunnerClientErrorType,
} from './errors';
import { describeZodError } from './events';
import { errorMessage } from '../errors';
import { ERROR_BODY_LIMIT, HTTP_TIMEOUT_MS } from '../limits';

export interface TransportOptions {
  baseUrl: string;
  /** Our runner's token: `Authorization: Bearer <token>`. */
  token?: string;
  /** GPU MODE identity from ~/.popcorn.yaml: `X-Popcorn-Cli-Id`. */
  cliId?: string;
  /** Ask for the additive SSE extensions (ids, job and output events). Default true. */
  extensions?: boolean;
  /** Per-request timeout for ordinary (non-streaming) calls, ms. Default 30 s. */
  timeoutMs?: number;
  userAgent?: string;
}

interface RequestOptions {
  data?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface StreamResponse {
  status: number;
  headers: Record<string, string | undefined>;
  body: Readable;
  url: string;
}

export interface Transport {
  readonly baseUrl: string;
  /** Absolute URL for a route path (or an absolute URL passed through). */
  url(pathOrUrl: string): string;
  /** A URL fit for messages. */
  show(url: string): string;
  json<T>(method: string, pathOrUrl: string, schema: z.ZodType<T>, options?: RequestOptions): Promise<T>;
  /** Like json, but a 204 (or empty body) resolves to undefined. */
  jsonOrEmpty<T>(
    method: string,
    pathOrUrl: string,
    schema: z.ZodType<T>,
    options?: RequestOptions,
  ): Promise<T | undefined>;
  /** Opens a streaming response; non-2xx statuses become `http` errors (their body read for `detail`). */
  stream(
    method: string,
    pathOrUrl: string,
    options?: RequestOptions & { connectTimeoutMs?: number },
  ): Promise<StreamResponse>;
  /** Maps any failure of a call to a RunnerClientError. */
  toError(err: unknown, method: string, url: string): RunnerClientError;
}

function normaliseBaseUrl(baseUrl: string): string {
  let parsed: URL;
  try {
    parsed = new URL(baseUrl);
  } catch {
    throw new InvalidRunnerUrlError(baseUrl, 'expected http(s)://host[:port][/path]');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new InvalidRunnerUrlError(displayUrl(baseUrl), 'only http and https are supported');
  }
  return parsed.toString().replace(/\/+$/, '');
}

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused (is the runner running?)',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed while sending',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ERR_BAD_RESPONSE: 'bad response',
  ERR_SOCKET_CONNECTION_TIMEOUT: 'connection timed out',
};

function errorCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'ERR_NETWORK') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return typeof (err as { code?: unknown })?.code === 'string' ? (err as { code: string }).code : undefined;
}

function detailFromBody(text: string): string | undefined {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  try {
    const body: unknown = JSON.parse(trimmed);
    if (body && typeof body === 'object') {
      const { detail, message } = body as { detail?: unknown; message?: unknown };
      if (typeof detail === 'string') return detail;
      if (detail !== undefined) return JSON.stringify(detail).slice(0, 500);
      if (typeof message === 'string') return message;
    }
  } catch {
    // not JSON: fall through to the text itself
  }
  return trimmed.slice(0, 500);
}

async function readLimited(body: Readable, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
      chunks.push(buf);
      size += buf.length;
      if (size >= limit) break;
    }
  } catch {
    // a body cut short still tells us something
  } finally {
    body.destroy();
  }
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8');
}

function linkSignals(...signals: Array<AbortSignal | undefined>): {
  signal: AbortSignal;
  abort(reason?: unknown): void;
  dispose(): void;
} {
  const controller = new AbortController();
  const listeners: Array<() => void> = [];
  for (const s of signals) {
    if (!s) continue;
    if (s.aborted) controller.abort(s.reason);
    const onAbort = () => controller.abort(s.reason);
    s.addEventListener('abort', onAbort, { once: true });
    listeners.push(() => s.removeEventListener('abort', onAbort));
  }
  return {
    signal: controller.signal,
    abort: (reason) => controller.abort(reason),
    dispose: () => listeners.forEach((off) => off()),
  };
}

export function createTransport(options: TransportOptions): Transport {
  const baseUrl = normaliseBaseUrl(options.baseUrl);
  const origin = new URL(baseUrl).origin;
  const secrets = [options.token, options.cliId];
  const timeoutMs = options.timeoutMs ?? HTTP_TIMEOUT_MS;
  const loopback = isLoopbackHost(new URL(baseUrl).hostname);
  const http = axios.create({
    adapter: 'http',
    validateStatus: () => true,
    // No maxContentLength: axios then wraps stream bodies so that destroy() no longer ends their iteration.
    // A loopback runner must never go through an HTTP(S)_PROXY from the environment. It never redirects either:
    // without redirects to follow, axios makes its requests with node:http itself instead of through
    // follow-redirects (~2 ms of the first request, which is most of `kernel-runner submit`'s).
    ...(loopback ? { proxy: false as const, maxRedirects: 0 } : {}),
  });

  const url = (pathOrUrl: string) =>
    /^https?:\/\//i.test(pathOrUrl) ? pathOrUrl : `${baseUrl}${pathOrUrl.startsWith('/') ? '' : '/'}${pathOrUrl}`;
  const show = (u: string) => redact(displayUrl(u), secrets);

  function headersFor(target: string, extra?: Record<string, string>): RawAxiosRequestHeaders {
    const headers: RawAxiosRequestHeaders = { Accept: 'application/json', ...extra };
    if (options.userAgent) headers['User-Agent'] = options.userAgent;
    // Identity goes only to the runner's own origin, never to a host a download_url might point at.
    if (new URL(target).origin === origin) {
      if (options.token) headers.Authorization = `Bearer ${options.token}`;
      if (options.cliId) headers[CLI_ID_HEADER] = options.cliId;
      if (options.extensions !== false) headers[EXTENSIONS_HEADER] = '1';
    }
    return headers;
  }

  function toError(err: unknown, method: string, target: string): RunnerClientError {
    if (err instanceof RunnerClientError) return err;
    const shown = show(target);
    const code = errorCode(err);
    const make = (type: RunnerClientErrorType, summary: string, detail?: string) =>
      new RunnerClientError(type, summary, {
        method,
        url: shown,
        code,
        detail: detail && redact(detail, secrets),
        cause: err,
      });
    if (axios.isCancel(err) || code === 'ERR_CANCELED' || (err instanceof Error && err.name === 'AbortError')) {
      return make('cancelled', 'Request cancelled');
    }
    if (code === 'ECONNABORTED' || code === 'ETIMEDOUT' || code === 'ERR_SOCKET_CONNECTION_TIMEOUT') {
      return make('timeout', 'No answer from the runner in time');
    }
    const reason = (code && NETWORK_REASONS[code]) ?? errorMessage(err);
    return make('network', `Cannot reach the runner (${code ?? 'network error'})`, reason);
  }

  function httpError(
    method: string,
    target: string,
    res: { status: number; statusText: string; headers: unknown },
    body: string,
  ): RunnerClientError {
    const { status, statusText } = res;
    const detail = detailFromBody(body);
    const retryAfter = (res.headers as Record<string, unknown> | undefined)?.['retry-after'];
    return new RunnerClientError('http', `Request failed with status ${status}${statusText ? ` ${statusText}` : ''}`, {
      method,
      url: show(target),
      status,
      detail: detail && redact(detail, secrets),
      retryAfterMs: typeof retryAfter === 'string' ? parseRetryAfter(retryAfter) : undefined,
    });
  }

  async function send(method: string, target: string, options: RequestOptions): Promise<AxiosResponse<ArrayBuffer>> {
    try {
      return await http.request<ArrayBuffer>({
        method,
        url: target,
        data: options.data,
        headers: headersFor(target, options.headers),
        signal: options.signal,
        timeout: options.timeoutMs ?? timeoutMs,
        responseType: 'arraybuffer',
      });
    } catch (err) {
      throw toError(err, method, target);
    }
  }

  function parseJson<T>(method: string, target: string, text: string, schema: z.ZodType<T>): T {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new RunnerClientError('protocol', 'The runner answered with something that is not JSON', {
        method,
        url: show(target),
        detail: redact(text.trim().slice(0, 200), secrets) || '(empty body)',
      });
    }
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      throw new RunnerClientError('protocol', 'The runner answered with an unexpected shape', {
        method,
        url: show(target),
        detail: describeZodError(parsed.error),
      });
    }
    return parsed.data;
  }

  async function jsonOrEmpty<T>(
    method: string,
    pathOrUrl: string,
    schema: z.ZodType<T>,
    options: RequestOptions = {},
  ): Promise<T | undefined> {
    const target = url(pathOrUrl);
    const res = await send(method, target, options);
    const text = Buffer.from(res.data ?? new ArrayBuffer(0)).toString('utf8');
    if (res.status >= 400) throw httpError(method, target, res, text);
    if (res.status === 204 || text.trim() === '') return undefined;
    return parseJson(method, target, text, schema);
  }

  return {
    baseUrl,
    url,
    show,
    toError,
    jsonOrEmpty,
    async json(method, pathOrUrl, schema, options = {}) {
      const value = await jsonOrEmpty(method, pathOrUrl, schema, options);
      if (value === undefined) {
        throw new RunnerClientError('protocol', 'The runner answered with an empty body', {
          method,
          url: show(url(pathOrUrl)),
        });
      }
      return value;
    },
    async stream(method, pathOrUrl, options = {}) {
      const target = url(pathOrUrl);
      const connectTimeoutMs = options.connectTimeoutMs ?? timeoutMs;
      const link = linkSignals(options.signal);
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        link.abort(new Error('connect timeout'));
      }, connectTimeoutMs);
      let res: AxiosResponse<Readable>;
      try {
        res = await http.request<Readable>({
          method,
          url: target,
          data: options.data,
          headers: headersFor(target, { Accept: 'text/event-stream', ...options.headers }),
          signal: link.signal,
          responseType: 'stream',
          // Streams can be quiet for a long time (queued jobs): no axios timeout, only the connect timer above.
          timeout: 0,
          decompress: true,
        });
      } catch (err) {
        link.dispose(); // no body will close: the user's signal must not keep a listener per failed attempt
        if (timedOut) {
          throw new RunnerClientError('timeout', `No response within ${Math.round(connectTimeoutMs / 1000)} s`, {
            method,
            url: show(target),
            cause: err,
          });
        }
        throw toError(err, method, target);
      } finally {
        clearTimeout(timer);
      }
      // From here on the caller owns the body; the user's signal still tears it down.
      const body = res.data;
      const onAbort = () => body.destroy(Object.assign(new Error('aborted'), { name: 'AbortError' }));
      options.signal?.addEventListener('abort', onAbort, { once: true });
      body.once('close', () => {
        options.signal?.removeEventListener('abort', onAbort);
        link.dispose();
      });
      if (res.status >= 400) {
        const text = await readLimited(body, ERROR_BODY_LIMIT);
        throw httpError(method, target, res, text);
      }
      const headers: Record<string, string | undefined> = {};
      for (const [k, v] of Object.entries(res.headers))
        headers[k.toLowerCase()] = v === undefined || v === null ? undefined : String(v);
      return { status: res.status, headers, body, url: target };
    },
  };
}
