// The program Slurm runs on the compute node for each run (`python3 -c SHIM STATUS POPCORN STARTED -- program ...`,
// passed as argv by srun: no shell, nothing of the submission becomes code). It
//   - writes STARTED (the node's name) first: the runner then knows the job left Slurm's queue, and a node that
//     cannot see the runner's data dir fails here, visibly;
//   - opens POPCORN (a file in the data dir; `-` for none) as file descriptor 3, where the program writes its
//     POPCORN_FD results (srun relays stdout and stderr only);
//   - ignores SIGINT and SIGTERM itself (Slurm's `scancel --signal=INT`, and the SIGTERM of a cancel, a node set
//     down or its time limit, reach every process of the step: the program and the profiler get them directly) and
//     starts the program with default signal dispositions: how the program ended is always written, never lost to
//     the order in which Slurm signals the step's processes (SIGKILL follows after Slurm's KillWait in any case);
//   - writes STATUS (exit code or signal, seconds) when the program ends: the exit status reaches the runner even
//     when srun lost its connection to slurmctld.
export const SLURM_SHIM = `
import json, os, signal, socket, sys, time
status_path, popcorn_path, started_path = sys.argv[1], sys.argv[2], sys.argv[3]
argv = sys.argv[5:]
def write(path, obj):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f)
    os.replace(tmp, path)
signal.signal(signal.SIGINT, signal.SIG_IGN)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
write(started_path, {"node": socket.gethostname(), "job": os.environ.get("SLURM_JOB_ID", "")})
if popcorn_path != "-":
    fd = os.open(popcorn_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    if fd != 3:
        os.dup2(fd, 3)
        os.close(fd)
    os.set_inheritable(3, True)
defaults = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2, signal.SIGPIPE, signal.SIGXFSZ)
start = time.time()
try:
    pid = os.posix_spawnp(argv[0], argv, os.environ, setsigdef=defaults)
except OSError as e:
    write(status_path, {"spawn_error": e.strerror or str(e), "errno": e.errno})
    sys.exit(127)
if popcorn_path != "-":
    os.close(3)
while True:
    try:
        _, st = os.waitpid(pid, 0)
        break
    except InterruptedError:
        continue
code = os.waitstatus_to_exitcode(st)
write(status_path, {"exit": code if code >= 0 else None, "signal": -code if code < 0 else None, "seconds": time.time() - start})
sys.exit(code if code >= 0 else 128 - code)
`;
