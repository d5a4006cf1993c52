// ECMA-48 escape sequences as terminals and glog/perfetto emit them: CSI (`ESC [ params final`, also cut off at the
// end of a line), OSC (`ESC ] ... BEL|ESC \`) and the two-byte escapes, in their 7-bit form and as 8-bit C1
// controls (U+009B CSI, U+009D OSC), which terminals obey as well. Lone ESC characters go too.
/* eslint-disable no-control-regex */
const ANSI =
  /(?:\x1b\[|\x9b)[0-?]*[ -/]*(?:[@-~]|$)|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c|$)|\x1b[@-Z\\-_]|\x1b/g;
const ESCAPES_7BIT = /\x1b\[[0-?]*[ -/]*(?:[@-~]|$)|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\|$)|\x1b[@-Z\\-_]|\x1b/g;
/** SGR (colours, bold): the one escape sequence a terminal takes without moving, erasing or answering. */
const SGR = /^\x1b\[[0-9;:]*m$/;
const C0_BUT_TAB_NEWLINE = /[\x00-\x08\x0b-\x1a\x1c-\x1f]/g;
const DEL_AND_C1 = /[\x7f-\x9f]/g;
// what is not a control, negated: V8 scans a string ~20% faster for it than for the controls' own class
const ANY_CONTROL = /[^\t\n\x20-\x7e\xa0-\uffff]/;
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
  if (!ANY_CONTROL.test(s)) return s;
  return s
    .replace(ESCAPES_7BIT, (seq) => (SGR.test(seq) ? seq : ''))
    .replace(C0_BUT_TAB_NEWLINE, '')
    .replace(DEL_AND_C1, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
