// Profile reports in `RunResult.result["benchmark.<i>.report"]` are base64 with the alternative alphabet `+*`
// (Python `base64.b64encode(report.encode("utf-8"), b"+*")`): `*` stands where standard base64 has `/`. A
// standard decoder either rejects the `*` or silently skips it, shifting every later bit: garbage text.
import { KernelRunnerError } from './errors';

export class ReportEncodingError extends KernelRunnerError {
  override readonly name = 'ReportEncodingError';
  readonly code = 'REPORT_ENCODING';
  readonly type = 'report-encoding' as const;
}

/** Decodes `+*` base64 to bytes. Whitespace is ignored, padding may be missing, `/` is accepted too. */
export function decodePopcornBase64ToBytes(encoded: string): Uint8Array {
  const compact = encoded.replace(/\s+/g, '');
  const bad = /[^A-Za-z0-9+*/=]/.exec(compact);
  if (bad)
    throw new ReportEncodingError(
      `not a +* base64 report: unexpected ${JSON.stringify(bad[0])} at offset ${bad.index}`,
    );
  const body = compact.replace(/=+$/, '');
  if (body.includes('=')) throw new ReportEncodingError('not a +* base64 report: "=" before the end');
  if (body.length % 4 === 1) throw new ReportEncodingError(`not a +* base64 report: impossible length ${body.length}`);
  const binary = atob(body.replace(/\*/g, '/'));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Decodes a `+*` base64 report to its UTF-8 text (invalid UTF-8 becomes U+FFFD rather than an error). */
export function decodePopcornBase64(encoded: string): string {
  return new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(decodePopcornBase64ToBytes(encoded));
}

/** Encodes text (as UTF-8) or bytes the way upstream's evaluator does: `+*` alphabet, with padding. */
export function encodePopcornBase64(data: string | Uint8Array): string {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  let binary = '';
  const CHUNK = 0x8000; // String.fromCharCode takes its bytes as arguments: keep the count modest
  for (let i = 0; i < bytes.length; i += CHUNK) binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(binary).replace(/\//g, '*');
}
