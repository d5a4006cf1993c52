// A real one-node Slurm cluster for tests (Debian's slurm-wlm + munge): its own munged, slurmctld and slurmd,
// each started in the foreground by us and stopped by its PID, with their own ports, socket, key, config and
// state folders under one temp dir (nothing of /etc/slurm or the system's munged is used). slurmd runs in a mount
// namespace where `<root>/hidden` is covered by an empty tmpfs: a data dir under it is one the node cannot see.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';

export interface SlurmCluster {
  root: string;
  /** Environment for Slurm's commands (SLURM_CONF) on top of the caller's. */
  env: NodeJS.ProcessEnv;
  partition: string;
  node: string;
  /** A folder the node does not see (a tmpfs over it in slurmd's mount namespace). */
  hiddenDir: string;
  /** Runs a Slurm command of the cluster (scontrol, squeue, ...), returns its stdout. */
  slurm(command: string, args: string[]): string;
  stopController(): Promise<void>;
  startController(): Promise<void>;
  /** Stops every daemon by its PID and removes the temp dir. */
  stop(): Promise<void>;
}

const DAEMONS = ['/usr/sbin/munged', '/usr/sbin/slurmctld', '/usr/sbin/slurmd', '/usr/bin/srun'];

/** Why a cluster cannot be started here, or null when it can (Slurm and munge installed, running as root). */
export function slurmMissing(): string | null {
  for (const p of DAEMONS) {
    if (!existsSync(p)) return `${p} is not installed (apt-get install slurm-wlm munge)`;
  }
  if (process.getuid?.() !== 0) return 'the test cluster runs its daemons as root';
  return null;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

function waitExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

async function stopDaemon(child: ChildProcess | undefined): Promise<void> {
  if (!child?.pid) return;
  try {
    process.kill(child.pid, 'SIGTERM');
  } catch {
    return;
  }
  if (!(await waitExit(child, 5000))) {
    try {
      process.kill(child.pid, 'SIGKILL');
    } catch {
      // gone
    }
    await waitExit(child, 2000);
  }
}

async function until(what: string, probe: () => boolean, ms: number, log: () => string): Promise<void> {
  const end = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > end) throw new Error(`slurm test cluster: timed out waiting for ${what}\n${log()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** SIGKILLs every process (but this one) whose environment holds `entry`; how many. */
function killCarrying(entry: string): number {
  const needle = Buffer.from(`\0${entry}\0`);
  let killed = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    let environ: Buffer;
    try {
      environ = Buffer.concat([Buffer.from([0]), readFileSync(`/proc/${name}/environ`), Buffer.from([0])]);
    } catch {
      continue;
    }
    if (environ.indexOf(needle) < 0) continue;
    try {
      process.kill(Number(name), 'SIGKILL');
      killed += 1;
    } catch {
      // gone
    }
  }
  return killed;
}

export async function startSlurmCluster(): Promise<SlurmCluster> {
  const root = mkdtempSync(path.join(tmpdir(), 'kr-slurm-'));
  const dirs = ['munge', 'spool/slurmctld', 'spool/slurmd', 'run', 'log', 'hidden'].map((d) => path.join(root, d));
  for (const d of dirs) mkdirSync(d, { recursive: true, mode: 0o700 });
  const socket = path.join(root, 'munge/munge.socket');
  const key = path.join(root, 'munge/munge.key');
  writeFileSync(key, randomBytes(1024), { mode: 0o600 });
  const host = hostname().split('.')[0] as string;
  const node = `kr${randomBytes(3).toString('hex')}`;
  const partition = 'mi300';
  const [ctldPort, slurmdPort] = [await freePort(), await freePort()];
  const conf = path.join(root, 'slurm.conf');
  writeFileSync(
    conf,
    [
      `ClusterName=kr${randomBytes(3).toString('hex')}`,
      `SlurmctldHost=${host}(127.0.0.1)`,
      `SlurmctldPort=${ctldPort}`,
      `SlurmdPort=${slurmdPort}`,
      'AuthType=auth/munge',
      `AuthInfo=socket=${socket}`,
      'CredType=cred/munge',
      'ProctrackType=proctrack/linuxproc',
      'TaskPlugin=task/none',
      'JobAcctGatherType=jobacct_gather/none',
      'ReturnToService=2',
      'SlurmUser=root',
      'SlurmdUser=root',
      'SchedulerType=sched/backfill',
      'SelectType=select/cons_tres',
      'SelectTypeParameters=CR_CPU',
      'MessageTimeout=3',
      'KillWait=2',
      'MinJobAge=600',
      `SlurmdSpoolDir=${path.join(root, 'spool/slurmd')}`,
      `StateSaveLocation=${path.join(root, 'spool/slurmctld')}`,
      `SlurmctldPidFile=${path.join(root, 'run/slurmctld.pid')}`,
      `SlurmdPidFile=${path.join(root, 'run/slurmd.pid')}`,
      `SlurmctldLogFile=${path.join(root, 'log/slurmctld.log')}`,
      `SlurmdLogFile=${path.join(root, 'log/slurmd.log')}`,
      `NodeName=${node} NodeHostname=${host} NodeAddr=127.0.0.1 CPUs=2 RealMemory=2000 State=UNKNOWN`,
      `PartitionName=${partition} Nodes=${node} Default=YES MaxTime=INFINITE State=UP`,
      '',
    ].join('\n'),
  );
  const env: NodeJS.ProcessEnv = { ...process.env, SLURM_CONF: conf };
  const logs = () =>
    ['slurmctld', 'slurmd']
      .map((d) => {
        try {
          return (
            `--- ${d}.log\n` +
            readFileSync(path.join(root, `log/${d}.log`), 'utf8')
              .split('\n')
              .slice(-15)
              .join('\n')
          );
        } catch {
          return '';
        }
      })
      .join('\n');
  const slurm = (command: string, args: string[]) =>
    execFileSync(command, args, { env, encoding: 'utf8', timeout: 120_000, stdio: ['ignore', 'pipe', 'pipe'] });
  const ok = (command: string, args: string[]) => {
    try {
      slurm(command, args);
      return true;
    } catch {
      return false;
    }
  };

  let munged: ChildProcess | undefined;
  let slurmctld: ChildProcess | undefined;
  let slurmd: ChildProcess | undefined;
  const stop = async () => {
    await stopDaemon(slurmd);
    // slurmstepd (one per job step) leaves slurmd: it and the job's processes carry the cluster's SLURM_CONF
    for (let round = 0; round < 3 && killCarrying(`SLURM_CONF=${conf}`) > 0; round++)
      await new Promise((r) => setTimeout(r, 100));
    await stopDaemon(slurmctld);
    await stopDaemon(munged);
    rmSync(root, { recursive: true, force: true });
  };
  const startController = async () => {
    slurmctld = spawn('/usr/sbin/slurmctld', ['-D', '-f', conf], { env, stdio: 'ignore' });
    await until('slurmctld', () => ok('scontrol', ['ping']), 120_000, logs);
  };
  try {
    munged = spawn(
      '/usr/sbin/munged',
      [
        '-F',
        '--force',
        `--socket=${socket}`,
        `--key-file=${key}`,
        `--pid-file=${path.join(root, 'run/munged.pid')}`,
        `--log-file=${path.join(root, 'log/munged.log')}`,
        `--seed-file=${path.join(root, 'munge/seed')}`,
      ],
      { stdio: 'ignore' },
    );
    await until(
      'munged',
      () => ok('/usr/bin/munge', ['-S', socket, '-n']),
      60_000,
      () => '',
    );
    await startController();
    // slurmd in its own mount namespace, with an empty tmpfs over <root>/hidden (fixed strings, no user input)
    slurmd = spawn(
      'unshare',
      [
        '--mount',
        '--propagation',
        'private',
        'sh',
        '-c',
        'mount -t tmpfs none "$1" && exec /usr/sbin/slurmd -D -f "$2" -N "$3"',
        'sh',
        path.join(root, 'hidden'),
        conf,
        node,
      ],
      { env, stdio: 'ignore' },
    );
    await until(
      'the node to be idle',
      () => /idle/.test(slurm('sinfo', ['-h', '-n', node, '-o', '%T'])),
      120_000,
      logs,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    root,
    env,
    partition,
    node,
    hiddenDir: path.join(root, 'hidden'),
    slurm,
    stopController: () => stopDaemon(slurmctld),
    startController,
    stop,
  };
}
