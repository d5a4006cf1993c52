// The parts of a large counter_collection.csv a worker the CLI's launcher started (traceWorkerPool.ts) scans before
// it is asked: the parts the parallel read of `summarize` will send it first (parallelParts.ts firstPartsOf), with
// the spec it will most likely send (the file's own columns, the epoch from its first row, no kernel trace beside
// it, the counters the roofline keeps). A part is only used when the task that comes is the same (sameCounterTask): any guess that
// is wrong costs the scan, never the result.
import { statSync } from 'node:fs';
import path from 'node:path';
import { Columns } from '../csvFile';
import { countersUsed } from '../counters/countersUsed';
import { partPlan } from '../fileParts';
import { firstPartsOf } from '../parallelParts';
import { firstRowEpoch, simpleHead } from '../kernelTraceParts';
import { counterSpec, type CounterTask } from './counterParts';

/**
 * The parts of `file` the read with `threads` (this thread scanning too: threads - 1 workers, counterCollection.ts)
 * will send worker `lane` first, in that order, as it will send them.
 */
export function speculativeCounterTasks(file: string, lane: number, threads: number): CounterTask[] {
  const size = statSync(file).size;
  const head = simpleHead(file);
  if (!head) return [];
  const names = new Columns(head.names);
  if (!names.has('Counter_Name')) return [];
  const start = names.find('Start_Timestamp');
  const epoch = start < 0 ? 0 : firstRowEpoch(head.first[start] ?? '');
  if (epoch === null) return [];
  const spec = counterSpec(names, epoch, false, [...countersUsed()]);
  const { count, boundary } = partPlan(head.dataStart, size, threads);
  return firstPartsOf(lane, threads - 1, count, threads, true).map((k) => ({
    index: k,
    path: file,
    fileSize: size,
    start: boundary(k),
    end: boundary(k + 1),
    exactStart: k === 0,
    kind: 'counters' as const,
    spec,
  }));
}

/** Whether two counter tasks are the same part of the same file read with the same spec. */
export function sameCounterTask(a: CounterTask, b: CounterTask): boolean {
  return (
    a.index === b.index &&
    path.resolve(a.path) === path.resolve(b.path) &&
    a.fileSize === b.fileSize &&
    a.start === b.start &&
    a.end === b.end &&
    a.exactStart === b.exactStart &&
    JSON.stringify(a.spec) === JSON.stringify(b.spec)
  );
}
