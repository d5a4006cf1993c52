// The limits and timeouts of src/runner, in one place: each named, with why it is what it is. Options of
// startRunner (and the flags of `kernel-runner serve`) override the defaults.

/** A request's headers must arrive within this (slow-loris connections are closed). */
export const HEADERS_TIMEOUT_MS = 30_000;

/** An upload must make progress (1 KiB/s) over each window this long. */
export const BODY_IDLE_TIMEOUT_MS = 30_000;

/** A whole upload must arrive within this: a 1 MB file takes seconds even on a poor link. */
export const BODY_TIMEOUT_MS = 120_000;

/** Between SIGINT/SIGTERM and SIGKILL of a job's processes: rocprofv3 needs seconds to write its files. */
export const KILL_GRACE_MS = 10_000;

/** Status heartbeats on event streams: GPU MODE's interval, which popcorn-cli's idle detection expects. */
export const HEARTBEAT_MS = 15_000;

/** How often finished jobs are checked against the retention limits. */
export const RETENTION_INTERVAL_MS = 3_600_000;

/** A tool's `--version` must answer within this (a hung tool must not hold up the job). */
export const VERSION_PROBE_TIMEOUT_MS = 30_000;

/** SIGTERM to SIGKILL for a `--version` probe: it has nothing to save. */
export const VERSION_PROBE_GRACE_MS = 1_000;

/** Output of a `--version` probe kept: one line is expected. */
export const VERSION_PROBE_CAP_BYTES = 4_096;

/** The shortest wait before looking at the machine's GPUs again, after start-up (the first look is at once). */
export const SYSTEM_PROBE_DELAY_MS = 3_000;

/** What one job's work dir may take on disk while it runs (--max-job-disk): 8 GiB, and never more than --max-data. */
export const DEFAULT_MAX_JOB_DISK_BYTES = 8 * 1024 ** 3;

/** Encoded event-log bytes past which a batch is handed to the file and the clients before the next tick. */
export const LOG_FLUSH_BYTES = 1 << 20;

/** Bytes handed to the file and not yet written past which the log asks the job's output to wait. */
export const LOG_BACKLOG_BYTES = 8 << 20;

/**
 * The event log's encoding buffer: frames are encoded into one chunk, sliced into batches without copies (a client
 * holding one slice keeps the chunk: see CLIENT_BACKLOG_BYTES).
 */
export const LOG_CHUNK_BYTES = 1 << 20;

/** Frames are joined as text and encoded together once they hold this many characters. */
export const LOG_ENCODE_CHARS = 64 * 1024;

/**
 * Unsent live output one event-stream client may hold before it continues from the job's log (backlogBudget.ts),
 * and all of them together. What a client holds is slices of the log's chunks (LOG_CHUNK_BYTES), which keep their
 * whole chunk alive: a 2 GB flood with 4 reading and 4 stalled clients peaked at 196-209 MiB RSS with 16/64 MiB
 * and 4 MiB chunks (the runner's bound is 200 MB), 167 MiB with 4/16 MiB and 1 MiB chunks.
 */
export const CLIENT_BACKLOG_BYTES = 4 * 1024 * 1024;
/** One read of a job's log for a client that follows it (each holds one in its socket's buffer until it drains). */
export const LOG_READ_BYTES = 1024 * 1024;
export const TOTAL_BACKLOG_BYTES = 16 * 1024 * 1024;

/** Under this a client is never moved for the runner's budget: the budget falls on the ones that hold the most. */
export const MIN_SHARE_BYTES = 1024 * 1024;

/** Room for the multipart form around the file (boundaries, headers, other fields) past --max-file-bytes. */
export const FORM_OVERHEAD_BYTES = 64 * 1024;

/** A live output batch is emitted once it holds this many characters (one event per line cost millions of events). */
export const BATCH_CHARS = 64 * 1024;

/** Between the final scancel and killing srun, should it not end by itself (Slurm's KillWait is 30 s by default). */
export const SRUN_KILL_MARGIN_MS = 45_000;

/** Slurm's commands retry an unreachable slurmctld for MessageTimeout (10 s by default) a few times: bound it. */
export const SLURM_COMMAND_TIMEOUT_MS = 30_000;

/** Longest line of a job's output kept whole: a line past it is cut (an endless line cannot hold the runner's memory). */
export const OUTPUT_LINE_MAX_BYTES = 64 * 1024;

/** Most of a POPCORN_FD results file read (whole lines): kernelbot's files are kilobytes; the rest is counted. */
export const POPCORN_CAP_CHARS = 32 * 1024 * 1024;

/** A job's output (live events and profiler logs together) past which output is counted, not kept (--max-job-output). */
export const DEFAULT_MAX_JOB_OUTPUT = 256 * 1024 * 1024;

/** How long a remembered isolation check is trusted: a day, so a changed kernel or sysctl is noticed soon. */
export const ISOLATION_CHECK_MAX_AGE_MS = 24 * 3600 * 1000;

/**
 * A job's stored output checks the data dir against --max-data each time it grows by this share of it: the dir's
 * peak in a burst of floods is the budget plus about this share (and what one check takes to run).
 */
export const BUDGET_CHECK_SHARE = 0.05;

/** A job's end sweeps the data dir (for the age limit) when the last sweep is at least this old. */
export const SWEEP_AFTER_JOB_MS = 60_000;

/** close() waits this long past the kill grace period for running jobs to end. */
export const CLOSE_MARGIN_MS = 5_000;
