// Registering with GPU MODE as popcorn-cli does (its `register` / `reregister` commands): ask the service for a
// new id (`GET /auth/init?provider=…` → `{state}`), open the provider's OAuth page with
// `state = base64url(JSON {cli_id, is_reset})` (no padding), and keep the id in ~/.popcorn.yaml, shared with
// popcorn-cli. The provider sends the browser to `{API}/auth/cli/{provider}?code=…&state=…`, which links the id
// to the account; until then calls with the id answer 401.
import { z } from '../protocol/zod';
import { createTransport } from '../client/http';
import { defaultPopcornConfigPath, readPopcornConfig, writePopcornCliId } from '../popcornConfig';
import { routes } from '../protocol/api';
import { CLI_REGISTER_HINTS, explainGpuModeError, GpuModeError, type ExplainOptions } from './errors';

export type OAuthProvider = 'discord' | 'github';
const oauthProviders: readonly OAuthProvider[] = ['discord', 'github'];

export function isOAuthProvider(value: string): value is OAuthProvider {
  return (oauthProviders as readonly string[]).includes(value);
}

/** GPU MODE's OAuth applications, as popcorn-cli names them (src/cmd/auth.rs). */
const OAUTH_CLIENT_IDS: Record<OAuthProvider, string> = {
  discord: '1361364685491802243',
  github: 'Ov23lieFd2onYk4OnKIR',
};

/** The JSON inside the OAuth `state` parameter. */
export interface RegistrationState {
  cli_id: string;
  is_reset: boolean;
}

function base64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url'); // URL-safe alphabet, no padding
}

/** `base64url(JSON {"cli_id": …, "is_reset": …})` without padding, key order as popcorn-cli writes it. */
export function encodeRegistrationState(cliId: string, isReset: boolean): string {
  return base64url(JSON.stringify({ cli_id: cliId, is_reset: isReset }));
}

const registrationStateSchema = z.object({ cli_id: z.string().min(1), is_reset: z.boolean() });

/** Reads a `state` back (the service does this in its callback); throws a RangeError on anything malformed. */
export function decodeRegistrationState(state: string): RegistrationState {
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(state)) throw new RangeError('registration state is not base64url');
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(state, 'base64url').toString('utf8'));
  } catch {
    throw new RangeError('registration state is not base64url JSON');
  }
  const parsed = registrationStateSchema.safeParse(json);
  if (!parsed.success) throw new RangeError('registration state lacks cli_id / is_reset');
  return parsed.data;
}

/**
 * The provider page the user must open. The redirect URI is `{baseUrl}/auth/cli/{provider}`: for the default base
 * URL this is byte for byte the URL popcorn-cli opens (Discord: client_id, response_type, redirect_uri, scope,
 * state; GitHub: client_id, state, redirect_uri).
 */
export function buildAuthorizeUrl(provider: OAuthProvider, state: string, baseUrl: string): string {
  const redirect = encodeURIComponent(`${baseUrl.replace(/\/+$/, '')}/auth/cli/${provider}`);
  const clientId = OAUTH_CLIENT_IDS[provider];
  if (provider === 'discord') {
    return `https://discord.com/oauth2/authorize?client_id=${clientId}&response_type=code&redirect_uri=${redirect}&scope=identify&state=${state}`;
  }
  return `https://github.com/login/oauth/authorize?client_id=${clientId}&state=${state}&redirect_uri=${redirect}`;
}

export interface StartRegistrationOptions {
  /** GPU MODE's base URL (see gpuModeBaseUrl). */
  baseUrl: string;
  provider: OAuthProvider;
  /** popcorn-cli's `reregister`: link a new id to the account that already has one. */
  reset: boolean;
  signal?: AbortSignal;
  /** Per-request timeout, ms (default the client's 30 s). */
  timeoutMs?: number;
  hints?: ExplainOptions['hints'];
}

export interface StartedRegistration {
  /** The new id; becomes valid once the user finishes the OAuth page. Save it with completeRegistration. */
  cliId: string;
  /** Open this in a browser. */
  authorizeUrl: string;
  provider: OAuthProvider;
  reset: boolean;
}

const authInitSchema = z.looseObject({ state: z.string().min(1) });

/**
 * Step 1: `GET /auth/init?provider=…` for a new cli_id, and the provider URL to open. Failures are GpuModeErrors
 * naming the method and URL.
 */
export async function startRegistration(options: StartRegistrationOptions): Promise<StartedRegistration> {
  const transport = createTransport({ baseUrl: options.baseUrl, extensions: false, timeoutMs: options.timeoutMs });
  let answer: z.infer<typeof authInitSchema>;
  try {
    answer = await transport.json('GET', routes.authInit(options.provider), authInitSchema, { signal: options.signal });
  } catch (err) {
    throw explainGpuModeError(err, { hints: options.hints });
  }
  const cliId = answer.state.trim();
  if (/[\r\n]/.test(cliId))
    throw new GpuModeError(
      'protocol',
      `GPU MODE sent an unusable id: GET ${transport.show(transport.url(routes.authInit(options.provider)))}`,
    );
  return {
    cliId,
    authorizeUrl: buildAuthorizeUrl(options.provider, encodeRegistrationState(cliId, options.reset), transport.baseUrl),
    provider: options.provider,
    reset: options.reset,
  };
}

/**
 * The cli_id saved now, if any: it is kept until the new one is confirmed (checkRegistration `ok`). GPU MODE's
 * callback can refuse the new one — a plain registration of an account that has one already ("User already has a
 * valid account with this User ID"), a reset of an account it does not know ("User not found") — and the saved id
 * keeps working then; writing the new one over it first would leave only an id every call answers 401.
 */
export async function savedCliId(configPath: string = defaultPopcornConfigPath()): Promise<string | undefined> {
  return (await readPopcornConfig(configPath)).cliId;
}

/** Why the new cli_id did not become valid, and what to do: what GPU MODE's callback refuses, in its words. */
export function notLinkedMessage(options: {
  reset: boolean;
  provider: OAuthProvider;
  /** Where the id that is kept lives, when there is one. */
  kept?: string;
  waitedS?: number;
  /** Name the CLI's commands (default) or the editor's. */
  cli?: boolean;
}): string {
  const waited = options.waitedS !== undefined ? ` (waited ${options.waitedS} s)` : '';
  const kept = options.kept ? ` The cli_id in ${options.kept} is kept: it still works.` : '';
  const command = (reset: boolean) =>
    options.cli === false
      ? reset
        ? 'Re-register'
        : 'Register'
      : `\`kernel-runner register ${options.provider}${reset ? ' --reset' : ''}\``;
  const refused = options.reset
    ? `If the sign-in page said "User not found. Please use the register command to create an account.", this ${options.provider} account was never registered: ${command(false)} registers it.`
    : `If the sign-in page said "User already has a valid account with this User ID. Please use the re-register command to re-authenticate.", this ${options.provider} account is registered already: ${command(true)} links a new cli_id to it.`;
  return `GPU MODE has not accepted the new cli_id${waited}.${kept} Finish signing in at the URL above. ${refused}`;
}

/**
 * Step 2: keep the id in ~/.popcorn.yaml (every other key, comment and the file mode stay), as popcorn-cli does
 * right after opening the browser. Returns the config path.
 */
export async function completeRegistration(
  cliId: string,
  options: { configPath?: string } = {},
): Promise<{ path: string }> {
  const file = options.configPath ?? defaultPopcornConfigPath();
  await writePopcornCliId(cliId, file);
  return { path: file };
}

export type RegistrationStatus =
  | { state: 'ok'; cliId: string; configPath: string }
  /** The service answered 401: the id is unknown (OAuth not finished, or reset elsewhere). */
  | { state: 'unregistered'; cliId: string; configPath: string; message: string }
  /** No cli_id in ~/.popcorn.yaml (or no file). */
  | { state: 'missing'; configPath: string; message: string };

export interface CheckRegistrationOptions {
  baseUrl: string;
  /** The id to check; default the one in ~/.popcorn.yaml (or configPath). */
  cliId?: string;
  configPath?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
  hints?: ExplainOptions['hints'];
}

/**
 * Whether the id works: one cheap authenticated call (`GET /user/submissions?limit=1`). 401 → `unregistered`;
 * other failures (network, 5xx, 429) are thrown as GpuModeErrors: they say nothing about the registration.
 */
export async function checkRegistration(options: CheckRegistrationOptions): Promise<RegistrationStatus> {
  const configPath = options.configPath ?? defaultPopcornConfigPath();
  let cliId = options.cliId;
  if (!cliId) {
    cliId = (await readPopcornConfig(configPath)).cliId;
    if (!cliId) {
      const register = (options.hints ?? CLI_REGISTER_HINTS).register;
      return {
        state: 'missing',
        configPath,
        message: `No GPU MODE cli_id in ${configPath}. To register, ${register}.`,
      };
    }
  }
  const transport = createTransport({
    baseUrl: options.baseUrl,
    cliId,
    extensions: false,
    timeoutMs: options.timeoutMs,
  });
  try {
    await transport.json('GET', routes.userSubmissions({ limit: 1 }), z.unknown(), { signal: options.signal });
    return { state: 'ok', cliId, configPath };
  } catch (err) {
    const explained = explainGpuModeError(err, { hints: options.hints });
    if (explained instanceof GpuModeError && explained.type === 'unregistered') {
      return { state: 'unregistered', cliId, configPath, message: explained.message };
    }
    throw explained;
  }
}
