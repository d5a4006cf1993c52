export type { ClassifiedLine, LineEnding, LineKind } from './types';
export { createLineClassifier } from './classifier';
export type { LineClassifier, LineClassifierOptions } from './classifier';
export { classifyLine } from './patterns';
export { stripAnsi, terminalSafe } from './ansi';
