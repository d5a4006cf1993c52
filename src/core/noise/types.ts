/** Where a line of a program's mixed stdout/stderr came from. */
export type LineKind = 'program' | 'perfetto' | 'glog' | 'rocprofv3' | 'legacy' | 'fatal';

/** How a line ended in the input: `''` = a piece of an over-long line that continues, or the input's last line. */
export type LineEnding = '\n' | '\r\n' | '\r' | '';

export interface ClassifiedLine {
  /** ANSI-free text, no line terminator. */
  text: string;
  /** The line as received (ANSI codes kept), minus its terminator. */
  raw: string;
  /** True for profiler chatter that a reader can hide; never true for the program's lines or fatal errors. */
  noise: boolean;
  kind: LineKind;
  /**
   * The terminator this line had, so a filter can reproduce the input byte for byte (progress bars use `\r`).
   * Always set by createLineClassifier; optional so that lines rebuilt from elsewhere (e.g. SSE events) fit.
   */
  eol?: LineEnding;
}
