"""Helpers shared by the example problems (pure Python: runs wherever python3 does, no torch or numpy).

Kernel Runner's own code, written to the reference-kernels layout: eval.py and utils.py sit next to the
problem folders and are copied beside the user's submission.py by the runner.
"""
import math
import random


class DeviceError(RuntimeError):
    """A submission may raise this to report a device/API failure; eval.py maps it to exit code 110."""


def set_seed(seed: int = 42) -> None:
    random.seed(seed)


def clear_cache() -> None:
    """Real problems flush the GPU L2 between timed runs; a CPU example has nothing to flush."""


def stats(durations: list) -> dict:
    """The timed runs' count, mean, sample standard deviation, standard error, best and worst (eval.py's results)."""
    runs = len(durations)
    mean = sum(durations) / runs
    std = math.sqrt(sum((d - mean) ** 2 for d in durations) / (runs - 1)) if runs > 1 else 0.0
    return {"runs": runs, "mean": mean, "std": std, "err": std / math.sqrt(runs),
            "best": float(min(durations)), "worst": float(max(durations))}


def match_reference(got, expected, rtol: float = 1e-5, atol: float = 1e-8, max_report: int = 5):
    """Compare two flat sequences of numbers. Returns (ok, message) where message lists the first mismatches."""
    try:
        got_len = len(got)
    except TypeError:
        return False, f"expected a sequence of {len(expected)} numbers, got {type(got).__name__}"
    if got_len != len(expected):
        return False, f"size mismatch: got {got_len} elements, expected {len(expected)}"
    mismatches = []
    worst = 0.0
    for i, (g, e) in enumerate(zip(got, expected)):
        try:
            diff = abs(float(g) - float(e))
        except (TypeError, ValueError):
            return False, f"element {i} is not a number: {g!r}"
        if math.isnan(diff) or diff > atol + rtol * abs(float(e)):
            mismatches.append(i)
        if not math.isnan(diff):
            worst = max(worst, diff)
    if mismatches:
        shown = ", ".join(f"at {i}: got {got[i]!r}, expected {expected[i]!r}" for i in mismatches[:max_report])
        more = f" (and {len(mismatches) - max_report} more)" if len(mismatches) > max_report else ""
        return False, f"{len(mismatches)} mismatched elements: {shown}{more}"
    return True, f"max abs error {worst:.3g}"
