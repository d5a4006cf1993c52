export type { ClassifiedLine } from './types';
export { createLineClassifier } from './classifier';
export { classifyLine } from './patterns';
export { stripAnsi, terminalSafe, utf8IsTerminalSafe } from './ansi';
