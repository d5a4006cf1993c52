// The local executor: every process is a child of the runner (runProcess, with the runner's isolation).
import { runProcess } from '../executor';
import type { Executor } from './index';

export function createLocalExecutor(): Executor {
  return {
    kind: 'local',
    description: 'local (child processes of this runner)',
    run: (req) => runProcess(req),
    queueCounts: () => null,
    health: () => ({ kind: 'local', available: true, detail: 'jobs run on this machine' }),
    close: async () => undefined,
  };
}
