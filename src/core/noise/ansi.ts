// ECMA-48 escape sequences as terminals and glog/perfetto emit them: CSI (`ESC [ params final`, also cut off at the
// end of a line), OSC (`ESC ] ... BEL|ESC \`) and the two-byte escapes. Lone ESC characters go too.
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-?]*[ -/]*(?:[@-~]|$)|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\|$)|\x1b[@-Z\\-_]|\x1b/g;

/** Removes ANSI escape sequences (colours, cursor moves, hyperlinks) from one line of text. */
export function stripAnsi(s: string): string {
  return s.indexOf('\x1b') === -1 ? s : s.replace(ANSI, '');
}
