// Who may talk to the runner: with a token, every route but /health needs it (Bearer or X-Popcorn-Cli-Id),
// compared in constant time. Without a token the runner listens on loopback only, and refuses browser
// cross-origin requests and foreign Host names (a web page must not be able to run code through it).
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { CLI_ID_HEADER } from '../../core/protocol/api';
import { HttpError } from './errors';

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

export function tokensEqual(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

export function presentedToken(req: IncomingMessage): string | null {
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
    throw new HttpError(401, `Missing token: send "Authorization: Bearer <token>" or "${CLI_ID_HEADER}: <token>"`, { 'WWW-Authenticate': 'Bearer' });
  }
  if (!tokensEqual(given, token)) throw new HttpError(401, 'Invalid token', { 'WWW-Authenticate': 'Bearer' });
}

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  return isIP(h) === 4 && h.startsWith('127.');
}

/** For a token-less (loopback) runner: only local tools, not web pages, may call it. */
export function checkLocalCaller(req: IncomingMessage): void {
  const origin = req.headers.origin;
  if (typeof origin === 'string' && origin !== '' && origin !== 'null') {
    let local: boolean;
    try {
      const o = new URL(origin);
      local = isLoopbackHost(o.hostname) && o.host === req.headers.host;
    } catch {
      local = false;
    }
    if (!local) throw new HttpError(403, `Cross-origin requests are refused (Origin: ${origin}); start the runner with --token to share it`);
  }
  const host = req.headers.host;
  if (typeof host === 'string') {
    const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0] ?? '';
    if (!isLoopbackHost(name)) throw new HttpError(403, `Host ${host} is not a loopback name; start the runner with --token to serve other hosts`);
  }
}
