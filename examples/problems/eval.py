"""Evaluator for Kernel Runner's example problems: `python3 eval.py <mode> <cases-file>`.

Kernel Runner's own code. It speaks the same protocol as the GPU MODE evaluators (reference-kernels /
kernelbot), so the runner treats it exactly like an upstream problem:
  - modes: test, benchmark, leaderboard, profile;
  - the cases file holds one spec a line, `key: value; key: value` (ints or words);
  - results are `key: value` lines written to the file descriptor named by POPCORN_FD;
  - POPCORN_SEED, when set, is mixed into every case's seed (the service's secret-seed run);
  - exit codes: 0 ok, 110 device/API failure, 111 POPCORN_FD missing or unusable, 112 validation failed,
    113 bad cases file, 114 the evaluator's own time budget ran out (KR_EVAL_TIMEOUT seconds, optional);
  - benchmark, leaderboard and profile runs open a rocTX range per case, `benchmark <i>: <case line>`, through
    torch.cuda.nvtx or libroctx64 when either is there (see CaseRanges), so that a profile has kernels per case.
Pure Python on purpose: the example runs on a plain CPU with python3 alone.
"""
import base64
import contextlib
import cProfile
import importlib.util
import io
import os
import pstats
import re
import signal
import sys
import time
import traceback

from utils import DeviceError, clear_cache, set_seed, stats
from reference import check_implementation, generate_input
from submission import custom_kernel

BENCH_MAX_RUNS = 100
BENCH_MIN_RUNS = 3
BENCH_BUDGET_NS = {"benchmark": 2e9, "leaderboard": 3e9}
PROFILE_RUNS = 20
EXIT_DEVICE, EXIT_PIPE, EXIT_FAILED, EXIT_BAD_SPEC, EXIT_TIMEOUT = 110, 111, 112, 113, 114

_PART = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*([A-Za-z_][A-Za-z0-9_.]*|[+-]?[0-9]+)\s*")


class Case:
    def __init__(self, spec: str, args: dict):
        self.spec = spec
        self.args = args


class Popcorn:
    """The result channel: `key: value` lines on the POPCORN_FD descriptor, flushed one by one."""

    def __init__(self, fd: int):
        self._file = os.fdopen(fd, "w")

    def log(self, key: str, value) -> None:
        text = str(value).replace("\n", "\\n")
        self._file.write(f"{key}: {text}\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()


def read_cases(path: str) -> list:
    try:
        with open(path, encoding="utf-8") as f:
            lines = [line.strip() for line in f.read().splitlines()]
    except OSError as e:
        print(f"eval.py: cannot read cases file {path!r}: {e}", file=sys.stderr)
        sys.exit(EXIT_BAD_SPEC)
    cases = []
    for number, line in enumerate(lines, 1):
        if not line:
            continue
        args = {}
        for part in line.split(";"):
            m = _PART.fullmatch(part)
            if not m:
                print(f"eval.py: {path}:{number}: invalid case {line!r} near {part!r}", file=sys.stderr)
                sys.exit(EXIT_BAD_SPEC)
            key, raw = m.group(1), m.group(2)
            try:
                args[key] = int(raw)
            except ValueError:
                args[key] = raw
        cases.append(Case(line, args))
    if not cases:
        print(f"eval.py: {path} holds no cases", file=sys.stderr)
        sys.exit(EXIT_BAD_SPEC)
    return cases


ROCTX_LIBRARIES = ("libroctx64.so", "libroctx64.so.4", "/opt/rocm/lib/libroctx64.so")


def _torch_nvtx():
    """torch.cuda.nvtx's push/pop (rocTX on a ROCm build of torch), or None without torch or a GPU build."""
    if "torch" not in sys.modules and importlib.util.find_spec("torch") is None:
        return None
    try:
        import torch
        if not torch.cuda.is_available():
            return None
        return torch.cuda.nvtx.range_push, torch.cuda.nvtx.range_pop
    except Exception:
        return None


def _roctx_library():
    """roctxRangePushA/roctxRangePop from libroctx64 through ctypes, or None when it does not load."""
    import ctypes
    for name in ROCTX_LIBRARIES:
        try:
            lib = ctypes.CDLL(name)
            push, pop = lib.roctxRangePushA, lib.roctxRangePop
        except (OSError, AttributeError):
            continue
        push.argtypes, push.restype = [ctypes.c_char_p], ctypes.c_int
        pop.argtypes, pop.restype = [], ctypes.c_int
        return (lambda message: push(message.encode("utf-8", "replace"))), pop
    return None


class CaseRanges:
    """A rocTX range around each benchmark case, named after it (`benchmark 0: size: 1024; seed: 1`), so that a
    profile (rocprofv3 --marker-trace) gives each case its kernels. Nothing happens where neither torch's nvtx
    nor libroctx64 is there, and a range that fails to open never fails the run."""

    def __init__(self):
        found = _torch_nvtx() or _roctx_library()
        self._push, self._pop = found if found else (None, None)

    @contextlib.contextmanager
    def case(self, index: int, case: Case):
        pushed = False
        if self._push is not None:
            try:
                self._push(f"benchmark {index}: {case.spec}")
                pushed = True
            except Exception:
                self._push = None
        try:
            yield
        finally:
            if pushed:
                try:
                    self._pop()
                except Exception:
                    self._push = None


def mix_seed(cases: list, seed) -> None:
    if seed is None:
        return
    for case in cases:
        if isinstance(case.args.get("seed"), int):
            case.args["seed"] = (case.args["seed"] * 31 + seed) % (2**31)


def call_kernel(data):
    """Run the user's kernel; returns (output, error-text)."""
    try:
        return custom_kernel(data), None
    except DeviceError:
        raise
    except Exception as e:  # the user's code: report it as a failed case, keep the traceback visible
        traceback.print_exc()
        return None, f"{type(e).__name__}: {e}"


def check(data, output):
    ok, message = check_implementation(data, output)
    return ok, message


def run_tests(out: Popcorn, cases: list) -> int:
    out.log("test-count", len(cases))
    passed = 0
    for i, case in enumerate(cases):
        out.log(f"test.{i}.spec", case.spec)
        data = generate_input(**case.args)
        output, error = call_kernel(data)
        if error is None:
            ok, message = check(data, output)
            error = None if ok else message
        if error is None:
            passed += 1
            out.log(f"test.{i}.status", "pass")
            out.log(f"test.{i}.message", message)
        else:
            out.log(f"test.{i}.status", "fail")
            out.log(f"test.{i}.error", error)
    print(f"{passed}/{len(cases)} tests passed")
    out.log("check", "pass" if passed == len(cases) else "fail")
    return 0 if passed == len(cases) else EXIT_FAILED


def time_case(case: Case, recheck: bool, budget_ns: float):
    """Times custom_kernel on one case; returns (stats, None) or (None, error-text)."""
    data = generate_input(**case.args)
    output, error = call_kernel(data)  # one checked call first (also warms caches)
    if error is None:
        ok, message = check(data, output)
        error = None if ok else message
    if error is not None:
        return None, error
    durations = []
    for run in range(BENCH_MAX_RUNS):
        if recheck:
            data = generate_input(**case.args)
        clear_cache()
        start = time.perf_counter_ns()
        output, error = call_kernel(data)
        durations.append(time.perf_counter_ns() - start)
        if error is not None:
            return None, error
        if recheck:
            ok, message = check(data, output)
            if not ok:
                return None, message
        if run + 1 >= BENCH_MIN_RUNS:
            s = stats(durations)
            if s["err"] / max(s["mean"], 1.0) < 0.01 or sum(durations) > budget_ns:
                break
    return stats(durations), None


def run_benchmarks(out: Popcorn, cases: list, mode: str) -> int:
    recheck = mode == "leaderboard"
    ranges = CaseRanges()
    out.log("benchmark-count", len(cases))
    failed = False
    for i, case in enumerate(cases):
        out.log(f"benchmark.{i}.spec", case.spec)
        with ranges.case(i, case):
            result, error = time_case(case, recheck, BENCH_BUDGET_NS[mode])
        if result is None:
            failed = True
            out.log(f"benchmark.{i}.status", "fail")
            out.log(f"benchmark.{i}.error", error)
            continue
        for key, value in result.items():
            out.log(f"benchmark.{i}.{key}", value)
        print(f"benchmark {i} ({case.spec}): mean {result['mean'] / 1000:.1f} µs over {result['runs']} runs")
    out.log("check", "fail" if failed else "pass")
    return EXIT_FAILED if failed else 0


def encode_report(text: str) -> str:
    return base64.b64encode(text.encode("utf-8"), altchars=b"+*").decode("ascii")


def run_profile(out: Popcorn, cases: list) -> int:
    ranges = CaseRanges()
    out.log("benchmark-count", len(cases))
    failed = False
    for i, case in enumerate(cases):
        out.log(f"benchmark.{i}.spec", case.spec)
        with ranges.case(i, case):
            report, error = profile_case(case)
        if error is not None:
            failed = True
            out.log(f"benchmark.{i}.status", "fail")
            out.log(f"benchmark.{i}.error", error)
            continue
        out.log(f"benchmark.{i}.report", encode_report(report))
    out.log("check", "fail" if failed else "pass")
    return EXIT_FAILED if failed else 0


def profile_case(case: Case):
    """One checked call, then PROFILE_RUNS calls under cProfile; returns (report text, None) or (None, error)."""
    data = generate_input(**case.args)
    output, error = call_kernel(data)
    if error is None:
        ok, message = check(data, output)
        error = None if ok else message
    if error is not None:
        return None, error
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(PROFILE_RUNS):
        custom_kernel(data)
    profiler.disable()
    text = io.StringIO()
    text.write(f"cProfile of custom_kernel, {PROFILE_RUNS} calls, case {case.spec}\n")
    pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(15)
    return text.getvalue(), None


def on_alarm(_signum, _frame):
    print("eval.py: time budget exhausted (KR_EVAL_TIMEOUT)", file=sys.stderr, flush=True)
    os._exit(EXIT_TIMEOUT)


def main() -> int:
    sys.stdout.reconfigure(line_buffering=True)  # live output through a pipe, line by line
    if len(sys.argv) < 3:
        print("usage: eval.py test|benchmark|leaderboard|profile CASES_FILE", file=sys.stderr)
        return 2
    mode, cases_path = sys.argv[1], sys.argv[2]
    if mode not in ("test", "benchmark", "leaderboard", "profile"):
        print(f"eval.py: unknown mode {mode!r}", file=sys.stderr)
        return 2
    fd = os.environ.get("POPCORN_FD")
    if not fd:
        print("eval.py: POPCORN_FD is not set", file=sys.stderr)
        return EXIT_PIPE
    try:
        out = Popcorn(int(fd))
    except (ValueError, OSError) as e:
        print(f"eval.py: cannot open POPCORN_FD={fd}: {e}", file=sys.stderr)
        return EXIT_PIPE
    cases = read_cases(cases_path)
    seed_env = os.environ.get("POPCORN_SEED")
    seed = int(seed_env) if seed_env else None
    set_seed(seed if seed is not None else 42)
    mix_seed(cases, seed)
    budget = os.environ.get("KR_EVAL_TIMEOUT")
    if budget:
        signal.signal(signal.SIGALRM, on_alarm)
        signal.alarm(max(1, int(float(budget))))
    print(f"eval.py: {mode} on {len(cases)} case(s), python {sys.version.split()[0]}")
    print(f"eval.py: seed {seed if seed is not None else 'default'}", file=sys.stderr)
    try:
        if mode == "test":
            return run_tests(out, cases)
        if mode == "profile":
            return run_profile(out, cases)
        return run_benchmarks(out, cases, mode)
    except DeviceError as e:
        print(f"eval.py: device failure: {e}", file=sys.stderr)
        return EXIT_DEVICE
    except BrokenPipeError:
        return EXIT_PIPE
    finally:
        try:
            out.close()
        except OSError:
            pass


if __name__ == "__main__":
    sys.exit(main())
