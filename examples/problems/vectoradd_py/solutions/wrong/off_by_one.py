#!POPCORN leaderboard vectoradd_py
"""A failing submission: forgets the last element, so every test reports a size mismatch."""
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    a, b = data
    print("off_by_one: adding", len(a) - 1, "elements")
    return [a[i] + b[i] for i in range(len(a) - 1)]
