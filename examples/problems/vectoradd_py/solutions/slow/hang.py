#!POPCORN leaderboard vectoradd_py
"""A submission that never returns: for timeout tests (the runner must kill it and leave no orphans)."""
import sys
import time

from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    print("hang: sleeping forever", flush=True)
    print("hang: sleeping forever (stderr)", file=sys.stderr, flush=True)
    while True:
        time.sleep(1)
