// The local executor: every process is a child of the runner (runProcess, with the runner's isolation), started in
// a namespace made ahead of time when the isolation is a PID namespace (standbyNamespace.ts).
import { runProcess, STATUS_FD } from '../executor';
import type { Isolation } from '../isolation';
import { createStandbyNamespace } from '../standbyNamespace';
import type { Executor } from './index';

export function createLocalExecutor(opts: { isolation?: Isolation } = {}): Executor {
  const isolation = opts.isolation;
  const standby = isolation?.kind === 'pid-namespace' ? createStandbyNamespace(isolation, STATUS_FD) : undefined;
  return {
    kind: 'local',
    description: 'local (child processes of this runner)',
    // only a process of the isolation the namespace was made for runs in it
    run: (req) => runProcess(standby && req.isolation === isolation ? { ...req, standby } : req),
    queueCounts: () => null,
    health: () => ({ kind: 'local', available: true, detail: 'jobs run on this machine' }),
    close: async () => standby?.close(),
  };
}
