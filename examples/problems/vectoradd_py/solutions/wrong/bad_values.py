#!POPCORN leaderboard vectoradd_py
"""A failing submission: subtracts instead of adding, so the check reports mismatched elements."""
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    a, b = data
    return [x - y for x, y in zip(a, b)]
