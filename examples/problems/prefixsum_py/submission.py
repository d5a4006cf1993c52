#!POPCORN leaderboard prefixsum_py
"""Template submission for prefixsum_py: implement custom_kernel(data) -> inclusive prefix sums."""
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    out = []
    total = 0
    for x in data:
        total += x
        out.append(total)
    return out
