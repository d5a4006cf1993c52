// A job's disk budget for its work dir (--max-job-disk): what the job's processes write there (sources built,
// outputs, the profiler's traces) is counted while the job runs, every POLL_MS, and a job past its budget is ended.
// Every entry counts its allocated blocks (a sparse file only what it holds), at least a block of 4 KiB (an empty
// file still costs an inode): a million empty files end a job as 4 GB would. In a PID namespace no single file can
// grow past the budget in between (RLIMIT_FSIZE, sandbox.ts): the write fails with EFBIG (SIGXFSZ).
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { formatBytes } from '../core/format';

const POLL_MS = 200;
const MIN_ENTRY_BYTES = 4096;

/** Bytes the tree at `dir` takes on disk, as counted against the budget; stops counting past `stopAt`. */
async function treeBytes(dir: string, stopAt = Infinity): Promise<number> {
  let total = 0;
  const pending = [dir];
  while (pending.length > 0 && total <= stopAt) {
    const current = pending.pop() as string;
    let names: string[];
    try {
      names = await readdir(current);
    } catch {
      continue; // gone meanwhile, or not a folder
    }
    for (const name of names) {
      const path = join(current, name);
      try {
        const s = await lstat(path);
        total += Math.max(s.blocks * 512, MIN_ENTRY_BYTES);
        if (s.isDirectory()) pending.push(path);
      } catch {
        // gone meanwhile
      }
    }
  }
  return total;
}

export interface DiskWatch {
  stop(): void;
}

/** Calls `onExceeded(bytes)` once when the work dir takes more than `limitBytes`. */
export function watchDiskBudget(dir: string, limitBytes: number, onExceeded: (bytes: number) => void): DiskWatch {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const poll = async () => {
    const used = await treeBytes(dir, limitBytes);
    if (stopped) return;
    if (used > limitBytes) {
      stopped = true;
      onExceeded(used);
      return;
    }
    timer = setTimeout(() => void poll(), POLL_MS);
  };
  timer = setTimeout(() => void poll(), POLL_MS);
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}

const DISK_FULL_FLAG = '(serve --max-job-disk)';

/** What a job that used up its budget is told (its run's stderr). */
export function diskFullReason(used: number, limitBytes: number): string {
  return `the job's work dir took ${formatBytes(used)}, past its disk budget of ${formatBytes(limitBytes)} ${DISK_FULL_FLAG}: the job was stopped (SIGKILL)`;
}

export function isDiskFullReason(reason: string): boolean {
  return reason.includes(DISK_FULL_FLAG);
}
