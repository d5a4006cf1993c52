// Whether a host name is this machine: `localhost`, `::1` (bracketed or not) or an IPv4 address in 127.0.0.0/8.
// One rule for the runner (who may call it without a token), the client (no proxy for loopback) and the token
// lookup (a stored token goes to loopback URLs only).
import { isIP } from 'node:net';

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  return isIP(h) === 4 && h.startsWith('127.');
}

/** The URL's host is this machine (an unparsable URL is not). */
export function isLoopbackUrl(url: string): boolean {
  try {
    return isLoopbackHost(new URL(url).hostname);
  } catch {
    return false;
  }
}
