#!POPCORN leaderboard alltoall_py
"""A wrong alltoall_py submission: every rank keeps what it holds instead of exchanging it."""
from task import input_t, output_t


def custom_kernel(data: input_t, comm) -> output_t:
    return [list(chunk) for chunk in data]
