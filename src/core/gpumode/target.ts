// GPU MODE's public submission service as a target: its default base URL (popcorn-cli's), `POPCORN_API_URL`, and
// telling it apart from our own runner, which serves the same routes.
import type { Health } from '../protocol/api';

/** popcorn-cli's default when `POPCORN_API_URL` is unset (its `main.rs`, mid-2026). */
export const GPUMODE_DEFAULT_URL = 'https://site--bot--dxfjds728w5v.code.run';
/** The environment variable popcorn-cli reads its base URL from; we honour it the same way. */
const POPCORN_API_URL_ENV = 'POPCORN_API_URL';

/** Our runner versus GPU MODE's service. */
export type ServiceKind = 'gpumode' | 'kernel-runner';

function normalise(url: string): string {
  return url.trim().replace(/\/+$/, '').toLowerCase();
}

/** GPU MODE's base URL: `POPCORN_API_URL` when set (and not blank), else popcorn-cli's default, no trailing slash. */
export function gpuModeBaseUrl(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const fromEnv = env[POPCORN_API_URL_ENV]?.trim();
  return (fromEnv || GPUMODE_DEFAULT_URL).replace(/\/+$/, '');
}

/**
 * Whether a base URL is GPU MODE's service by name alone: the default URL, the `POPCORN_API_URL` in effect, or a
 * host that names GPU MODE (gpumode / gpu-mode / discord-cluster-manager). A URL this says no to may still be
 * GPU MODE's service (a new host): `serviceKindFromHealth` decides from the server's own answer.
 */
export function isGpuModeUrl(url: string, env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  const target = normalise(url);
  if (target === normalise(GPUMODE_DEFAULT_URL)) return true;
  const fromEnv = env[POPCORN_API_URL_ENV]?.trim();
  if (fromEnv && normalise(fromEnv) === target) return true;
  try {
    return /(^|\.)(gpumode|gpu-mode|discord-cluster-manager)/i.test(new URL(url).hostname);
  } catch {
    return false;
  }
}

/**
 * What answered `GET /health`: our runner adds `version` (and `gpus`, `profiler`); GPU MODE's service answers only
 * `{"status":"ok"}`.
 */
export function serviceKindFromHealth(health: Health): ServiceKind {
  return typeof health.version === 'string' && health.version !== '' ? 'kernel-runner' : 'gpumode';
}

/** Asks the server: one `GET /health`. Errors (network, 5xx) are the caller's to report. */
export async function detectServiceKind(
  client: { health(options?: { signal?: AbortSignal }): Promise<Health> },
  options: { signal?: AbortSignal } = {},
): Promise<ServiceKind> {
  return serviceKindFromHealth(await client.health({ signal: options.signal }));
}
