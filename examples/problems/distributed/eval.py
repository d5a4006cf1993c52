"""Evaluator for Kernel Runner's multi-process example problems: `python3 eval.py <mode> <cases-file>`.

Kernel Runner's own code, written to the layout and protocol of GPU MODE's distributed problems
(reference-kernels problems/amd_distributed): every case names its `world_size`, and each rank is its own process,
started with multiprocessing's spawn method, rank r on device r of the POPCORN_GPUS devices the runner gives the
job. Each rank process starts with RANK, LOCAL_RANK and WORLD_SIZE in its environment (as torchrun starts its
workers), so that a profiler sees which rank each process is. Ranks talk through pipes (a Communicator), not
torch.distributed: the example runs on a plain CPU with python3 alone.

Protocol as ../eval.py: modes test, benchmark, leaderboard, profile; `key: value` results on POPCORN_FD; exit codes
0 ok, 110 device failure, 111 POPCORN_FD unusable, 112 validation failed, 113 bad cases file.
"""
import base64
import multiprocessing
import multiprocessing.connection
import os
import sys
import threading
import time
from multiprocessing import resource_tracker

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from utils import DeviceError, stats  # noqa: E402

BENCH_MAX_RUNS = 50
BENCH_MIN_RUNS = 3
BENCH_BUDGET_NS = 1e9
PROFILE_RUNS = 10
EXIT_DEVICE, EXIT_PIPE, EXIT_FAILED, EXIT_BAD_SPEC = 110, 111, 112, 113


class Communicator:
    """This rank's end of a pipe to every other rank: send(to, obj) never blocks the caller (a thread per send),
    recv(frm) waits for that rank's next object; barrier() waits for every rank."""

    def __init__(self, rank: int, world_size: int, ends: dict, barrier):
        self.rank = rank
        self.world_size = world_size
        self._ends = ends
        self._barrier = barrier
        self._sending = []

    def send(self, to: int, obj) -> None:
        t = threading.Thread(target=self._ends[to].send, args=(obj,))
        t.start()
        self._sending.append(t)

    def recv(self, frm: int):
        return self._ends[frm].recv()

    def barrier(self) -> None:
        for t in self._sending:
            t.join()
        self._sending.clear()
        self._barrier.wait()


def rank_main(mode: str, args: dict, rank: int, world_size: int, ends: dict, barrier, results) -> None:
    """One rank: its input, the submission's kernel (checked), timed runs for benchmark and profile modes."""
    from reference import check_implementation, generate_input
    from submission import custom_kernel

    comm = Communicator(rank, world_size, ends, barrier)
    # a rank that fails before a barrier breaks it, so that the others stop waiting for it (after a barrier every
    # rank goes on by itself: breaking it then would fail ranks that were still waking from it)
    try:
        data = generate_input(rank=rank, **args)
        output = custom_kernel(data, comm)
        comm.barrier()
        ok, message = check_implementation(data, output, rank=rank, **args)
        if not ok or mode == "test":
            results.send((rank, ok, message, None))
            return
        durations = []
        for run in range(PROFILE_RUNS if mode == "profile" else BENCH_MAX_RUNS):
            comm.barrier()
            start = time.perf_counter_ns()
            output = custom_kernel(data, comm)
            comm.barrier()
            durations.append(time.perf_counter_ns() - start)
            if mode == "leaderboard":
                ok, message = check_implementation(data, output, rank=rank, **args)
                if not ok:
                    barrier.abort()
                    break
            if mode != "profile" and run + 1 >= BENCH_MIN_RUNS and sum(durations) > BENCH_BUDGET_NS:
                break
        results.send((rank, ok, message, durations))
    except threading.BrokenBarrierError:
        results.send((rank, False, None, None))  # another rank failed while this one waited for it
    except Exception as e:  # noqa: BLE001 - a rank's failure is reported as the case's
        barrier.abort()
        results.send((rank, False, f"{type(e).__name__}: {e}", None))


def run_case(mode: str, args: dict, devices: int):
    """All ranks of a case -> (ok, message, durations of the slowest rank per run or None)."""
    world_size = int(args.get("world_size", 0))
    if world_size < 1:
        return False, "the case has no world_size", None
    if world_size > devices:
        return False, f"world_size {world_size} needs {world_size} devices; the job has {devices} (POPCORN_GPUS)", None
    ctx = multiprocessing.get_context("spawn")
    # multiprocessing's helper process starts before any rank's variables are set: it is no rank
    resource_tracker.ensure_running()
    ends = {r: {} for r in range(world_size)}
    for a in range(world_size):
        for b in range(a + 1, world_size):
            ends[a][b], ends[b][a] = ctx.Pipe()
    barrier = ctx.Barrier(world_size)
    results_out, results_in = ctx.Pipe(duplex=False)
    procs = []
    saved = {k: os.environ.get(k) for k in ("RANK", "LOCAL_RANK", "WORLD_SIZE")}
    try:
        for rank in range(world_size):
            os.environ.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(world_size))
            p = ctx.Process(target=rank_main, args=(mode, args, rank, world_size, ends[rank], barrier, results_in))
            p.start()
            procs.append(p)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    answers = {}
    running = {p.sentinel: rank for rank, p in enumerate(procs)}
    while len(answers) < world_size:
        ready = multiprocessing.connection.wait([results_out, *running])
        if results_out.poll():
            rank, ok, message, durations = results_out.recv()
            answers[rank] = (ok, message, durations)
            continue
        for sentinel in ready:
            rank = running.pop(sentinel, None)
            if rank is not None and rank not in answers:
                # ended without an answer (killed, os._exit): the others must not wait for it
                procs[rank].join()
                answers[rank] = (False, f"the process ended without an answer (exit code {procs[rank].exitcode})", None)
                barrier.abort()
    for p in procs:
        p.join()
    failed = [f"rank {r}: {m}" for r, (ok, m, _) in sorted(answers.items()) if not ok and m is not None]
    if failed or not all(ok for ok, _, _ in answers.values()):
        shown = failed[:2] + ([f"(and {len(failed) - 2} more ranks)"] if len(failed) > 2 else [])
        return False, "; ".join(shown) or "a rank failed", None
    runs = [d for _, _, d in answers.values() if d is not None]
    if not runs:
        return True, answers[0][1], None
    return True, answers[0][1], [max(column) for column in zip(*runs)]


def read_cases(path: str) -> list:
    cases = []
    try:
        with open(path, encoding="utf-8") as f:
            lines = [line.strip() for line in f.read().splitlines() if line.strip()]
    except OSError as e:
        print(f"eval.py: cannot read cases file {path!r}: {e}", file=sys.stderr)
        sys.exit(EXIT_BAD_SPEC)
    for line in lines:
        args = {}
        for part in line.split(";"):
            key, sep, raw = part.partition(":")
            if not sep or not key.strip().isidentifier():
                print(f"eval.py: invalid case {line!r}", file=sys.stderr)
                sys.exit(EXIT_BAD_SPEC)
            raw = raw.strip()
            args[key.strip()] = int(raw) if raw.lstrip("+-").isdigit() else raw
        cases.append((line, args))
    if not cases:
        print(f"eval.py: {path} holds no cases", file=sys.stderr)
        sys.exit(EXIT_BAD_SPEC)
    return cases


def main() -> int:
    sys.stdout.reconfigure(line_buffering=True)
    if len(sys.argv) < 3 or sys.argv[1] not in ("test", "benchmark", "leaderboard", "profile"):
        print("usage: eval.py test|benchmark|leaderboard|profile CASES_FILE", file=sys.stderr)
        return 2
    mode = sys.argv[1]
    try:
        out = os.fdopen(int(os.environ["POPCORN_FD"]), "w")
    except (KeyError, ValueError, OSError) as e:
        print(f"eval.py: POPCORN_FD is not usable: {e}", file=sys.stderr)
        return EXIT_PIPE

    def log(key, value):
        out.write(f"{key}: {str(value).replace(chr(10), chr(92) + 'n')}\n")
        out.flush()

    cases = read_cases(sys.argv[2])
    seed = os.environ.get("POPCORN_SEED")
    devices = int(os.environ.get("POPCORN_GPUS") or "1")
    print(f"eval.py: {mode} on {len(cases)} case(s), {devices} device(s)")
    kind = "test" if mode == "test" else "benchmark"
    log(f"{kind}-count", len(cases))
    failed = False
    try:
        for i, (spec, args) in enumerate(cases):
            if seed is not None and "seed" in args:
                args["seed"] = (args["seed"] * 6364136223846793005 + int(seed)) % 2**31
            log(f"{kind}.{i}.spec", spec)
            ok, message, durations = run_case(mode, args, devices)
            if not ok:
                failed = True
                log(f"{kind}.{i}.status", "fail")
                log(f"{kind}.{i}.error", message)
            elif mode == "test":
                log(f"{kind}.{i}.status", "pass")
                log(f"{kind}.{i}.message", message)
            elif mode == "profile":
                report = f"{len(durations)} runs of {args['world_size']} ranks; slowest rank per run (ns): {durations}\n"
                log(f"{kind}.{i}.report", base64.b64encode(report.encode(), altchars=b"+*").decode("ascii"))
            else:
                for key, value in stats(durations).items():
                    log(f"{kind}.{i}.{key}", value)
        log("check", "fail" if failed else "pass")
    except DeviceError as e:
        print(f"eval.py: device failure: {e}", file=sys.stderr)
        return EXIT_DEVICE
    finally:
        out.close()
    return EXIT_FAILED if failed else 0


if __name__ == "__main__":
    sys.exit(main())
