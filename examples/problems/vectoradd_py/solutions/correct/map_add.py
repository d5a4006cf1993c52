#!POPCORN leaderboard vectoradd_py
"""A correct submission using map (a little faster than the template's comprehension)."""
import operator

from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    a, b = data
    return list(map(operator.add, a, b))
