#!POPCORN leaderboard vectoradd_py
"""A failing submission: raises inside the kernel (the traceback goes to stderr, the case fails)."""
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    raise ValueError("kernel launch failed on purpose")
