#!POPCORN leaderboard prefixsum_py
"""A failing submission: computes the exclusive scan instead of the inclusive one."""
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    out = []
    total = 0
    for x in data:
        out.append(total)
        total += x
    return out
