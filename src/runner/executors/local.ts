// The local executor: every process is a child of the runner (runProcess, with the runner's isolation), started in
// a namespace made ahead of time when the isolation is a PID namespace (standbyNamespace.ts).
import { runProcess, STATUS_FD } from '../executor';
import type { Isolation } from '../isolation';
import { createStandbyNamespace } from '../standbyNamespace';
import type { Executor } from './index';

/**
 * `oneSubmission`: the runner runs one submission and stops (`kernel-runner submit`'s): no namespace is made ahead
 * after its job's last process took one, which would only be started to be killed.
 */
export function createLocalExecutor(opts: { isolation?: Isolation; oneSubmission?: boolean } = {}): Executor {
  const isolation = opts.isolation;
  const standby = isolation?.kind === 'pid-namespace' ? createStandbyNamespace(isolation, STATUS_FD) : undefined;
  const forRequest = (last: boolean | undefined) =>
    standby && opts.oneSubmission && last ? { take: () => standby.take(false), close: () => standby.close() } : standby;
  return {
    kind: 'local',
    description: 'local (child processes of this runner)',
    // only a process of the isolation the namespace was made for runs in it
    run: (req) =>
      runProcess(standby && req.isolation === isolation ? { ...req, standby: forRequest(req.lastOfJob) } : req),
    queueCounts: () => null,
    health: () => ({ kind: 'local', available: true, detail: 'jobs run on this machine' }),
    close: async () => standby?.close(),
  };
}
