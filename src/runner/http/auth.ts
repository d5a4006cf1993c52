// Who may talk to the runner: with a token, every route but /health needs it (Bearer or X-Popcorn-Cli-Id),
// compared in constant time. In every mode a browser request from another origin (or `Origin: null`) is refused;
// without a token the runner listens on loopback only, and also refuses foreign Host names and any request a
// browser marks as coming from another site (Sec-Fetch-Site): a web page must not be able to run code through it.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isLoopbackHost } from '../../core/loopback';
import { CLI_ID_HEADER } from '../../core/protocol/api';
import { HttpError } from './errors';

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

function tokensEqual(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

function presentedToken(req: IncomingMessage): string | null {
  const auth = req.headers.authorization;
  if (typeof auth === 'string') {
    const m = /^Bearer\s+(.+)$/i.exec(auth.trim());
    if (m) return (m[1] as string).trim();
  }
  const cli = req.headers[CLI_ID_HEADER.toLowerCase()];
  if (typeof cli === 'string' && cli.trim()) return cli.trim();
  return null;
}

export function checkToken(req: IncomingMessage, token: string): void {
  const given = presentedToken(req);
  if (given === null) {
    throw new HttpError(401, `Missing token: send "Authorization: Bearer <token>" or "${CLI_ID_HEADER}: <token>"`, {
      'WWW-Authenticate': 'Bearer',
    });
  }
  if (!tokensEqual(given, token)) throw new HttpError(401, 'Invalid token', { 'WWW-Authenticate': 'Bearer' });
}

/** The Host header's name part (`[::1]` kept bracketed), or '' when there is none. */
function hostName(host: string): string {
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : (host.split(':')[0] ?? '');
}

/**
 * Browsers name the page that made a request in `Origin`; a request the runner's own origin did not make is
 * refused whatever the mode: `Origin: null` (a sandboxed iframe, a form POST under `referrer=no-referrer`, a
 * `file:` page) and any other site. The runner's own origin is the Host the request was sent to (or, behind a
 * proxy, the origin of `publicUrl`). Tools (curl, popcorn-cli, our client) send no Origin.
 */
export function checkOrigin(req: IncomingMessage, publicUrl?: string): void {
  const origin = req.headers.origin;
  if (origin === undefined) return;
  const host = req.headers.host;
  let own = false;
  if (origin !== 'null' && typeof host === 'string') {
    try {
      const o = new URL(origin);
      own = (o.protocol === 'http:' || o.protocol === 'https:') && o.host === host.toLowerCase();
      if (!own && publicUrl) own = o.origin === new URL(publicUrl).origin;
    } catch {
      own = false;
    }
  }
  if (!own) {
    throw new HttpError(
      403,
      `Cross-origin requests are refused (Origin: ${origin || '(empty)'}): a web page may not use the runner; call it from a tool, or start it with --token to share it`,
    );
  }
}

/** `Sec-Fetch-Site` values of a request the user made themselves (address bar, a tool) or the runner's own page. */
const OWN_FETCH_SITES = new Set(['none', 'same-origin']);

/** For a token-less (loopback) runner: only local tools, not web pages, may call it. */
export function checkLocalCaller(req: IncomingMessage): void {
  checkOrigin(req);
  // A cross-site form POST may come without Origin (older browsers, some redirects); the browser still says where
  // it came from in Sec-Fetch-Site, which a page cannot forge.
  const site = req.headers['sec-fetch-site'];
  if (typeof site === 'string' && !OWN_FETCH_SITES.has(site.trim().toLowerCase())) {
    throw new HttpError(
      403,
      `Requests from web pages are refused (Sec-Fetch-Site: ${site}): call the runner from a tool, or start it with --token to share it`,
    );
  }
  const host = req.headers.host;
  if (typeof host === 'string') {
    const name = hostName(host);
    if (!isLoopbackHost(name))
      throw new HttpError(
        403,
        `Host ${host} is not a loopback name; start the runner with --token to serve other hosts`,
      );
  }
}
