#!POPCORN leaderboard vectoradd_py
"""Template submission for vectoradd_py: implement custom_kernel(data) -> list of a[i] + b[i]."""
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    a, b = data
    return [x + y for x, y in zip(a, b)]
