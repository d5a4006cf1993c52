#!POPCORN leaderboard prefixsum_py
"""A correct submission using itertools.accumulate."""
import itertools

from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    return list(itertools.accumulate(data))
