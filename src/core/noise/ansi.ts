// ECMA-48 escape sequences as terminals and glog/perfetto emit them: CSI (`ESC [ params final`, also cut off at the
// end of a line), OSC (`ESC ] ... BEL|ESC \`) and the two-byte escapes, in their 7-bit form and as 8-bit C1
// controls (U+009B CSI, U+009D OSC), which terminals obey as well. Lone ESC characters go too.
/* eslint-disable no-control-regex */
const ANSI =
  /(?:\x1b\[|\x9b)[0-?]*[ -/]*(?:[@-~]|$)|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c|$)|\x1b[@-Z\\-_]|\x1b/g;
/**
 * What terminalSafe changes, found in one pass: a control character (every C0 but tab and newline, DEL, C1) and,
 * when it is ESC, the 7-bit escape sequence it starts (CSI, OSC, the two-byte escapes; else ESC alone). The scan
 * looks for the controls' class only: the sequences are tried where an ESC was found.
 */
const UNSAFE =
  /[\x00-\x08\x0b-\x1f\x7f-\x9f](?:(?<=\x1b)(?:\[[0-?]*[ -/]*(?:[@-~]|$)|\][^\x07\x1b]*(?:\x07|\x1b\\|$)|[@-Z\\-_]))?/g;
/** SGR (colours, bold): the one escape sequence a terminal takes without moving, erasing or answering. */
const SGR = /^\x1b\[[0-9;:]*m$/;
/* eslint-enable no-control-regex */

/** Removes ANSI escape sequences (colours, cursor moves, hyperlinks) from one line of text. */
export function stripAnsi(s: string): string {
  return s.indexOf('\x1b') === -1 && s.indexOf('\x9b') === -1 && s.indexOf('\x9d') === -1 ? s : s.replace(ANSI, '');
}

/**
 * Text made safe for a terminal: a program's output must not erase, overwrite or forge the lines around it, nor
 * make the terminal answer. Escape sequences but SGR (colours) and every C0 control but tab and newline
 * (backspace, CR, BEL...) are removed; DEL and the C1 controls (U+009B, the 8-bit CSI...) are written as `\u009b`,
 * which is also what they are in JSON, so JSON output stays exact.
 */
export function terminalSafe(s: string): string {
  // no match: the same string back, nothing allocated
  return s.replace(UNSAFE, safeReplacement);
}

function safeReplacement(found: string): string {
  if (found.length > 1) return SGR.test(found) ? found : '';
  const code = found.charCodeAt(0);
  return code < 0x20 ? '' : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * Byte by byte, what utf8IsTerminalSafe's word test flagged: a control but tab and newline, DEL, C1 (C2 80..9F),
 * and a bidirectional control, which the CLI writes out (U+061C: D8 9C; U+200E/F, U+202A-202E: E2 80 8E/8F/AA-AE;
 * U+2066-2069: E2 81 A6-A9).
 */
function bytesSafe(b: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = b[i] as number;
    if (c < 0x20 ? c !== 0x09 && c !== 0x0a : c === 0x7f || (c === 0xc2 && (b[i + 1] ?? 0) < 0xa0)) return false;
    if (c === 0xe2 || c === 0xd8) {
      const c1 = b[i + 1] ?? 0;
      const c2 = b[i + 2] ?? 0;
      if (
        c === 0xd8
          ? c1 === 0x9c
          : c1 === 0x80
            ? c2 === 0x8e || c2 === 0x8f || (c2 >= 0xaa && c2 <= 0xae)
            : c1 === 0x81 && c2 >= 0xa6 && c2 <= 0xa9
      )
        return false;
    }
  }
  return true;
}

/**
 * Whether UTF-8 text holds nothing the CLI's guard would change (no control but tab and newline, no DEL, no C1, no
 * bidirectional control: src/cli/terminalOutput.ts), read
 * four bytes at a time: a word with no byte below 0x20 but newlines, 0x7f or 0x80 and above is passed at once, the
 * others byte by byte. ~2x faster than terminalSafe's scan of the string, for output already encoded to be written.
 */
export function utf8IsTerminalSafe(b: Uint8Array): boolean {
  const n = b.length;
  const head = (4 - (b.byteOffset & 3)) & 3;
  if (n < head + 4) return bytesSafe(b, 0, n);
  if (!bytesSafe(b, 0, head)) return false;
  const words = (n - head) >>> 2;
  // Int32: the arithmetic stays in 32-bit integers (a Uint32 above 2^31 is a double)
  const w = new Int32Array(b.buffer, b.byteOffset + head, words);
  for (let k = 0; k < words; k++) {
    const x = w[k] as number;
    const low = x & 0x7f7f7f7f;
    const nl = x ^ 0x0a0a0a0a;
    // bit 7 of each byte: below 0x20 and not a newline | 0x7f | 0x80 and above (each byte exact, no carries across)
    const below20 = ~((low + 0x60606060) | x) & (((nl & 0x7f7f7f7f) + 0x7f7f7f7f) | nl);
    if ((below20 | (low + 0x01010101) | x) & 0x80808080) {
      const i = head + 4 * k;
      if (!bytesSafe(b, i, i + 4)) return false;
    }
  }
  return bytesSafe(b, head + 4 * words, n);
}
