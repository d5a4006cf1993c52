// Bidirectional controls (embeddings, overrides and isolates U+202A-202E, U+2066-2069; the marks U+200E, U+200F and
// U+061C) reorder how the text around them is shown: a kernel or file name holding one can display as another name
// (Trojan Source). Both front-ends show such names with each control written out instead of obeyed.
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** `text` with each bidirectional control written as its escape (`\u202e`, as JSON writes it): shown, not obeyed. */
export function showBidiControls(text: string): string {
  BIDI_CONTROLS.lastIndex = 0;
  return BIDI_CONTROLS.test(text)
    ? text.replace(BIDI_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : text;
}
