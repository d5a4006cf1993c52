"""A minimal script for the `script` leaderboard: a few lines on stdout and stderr, exit code 0."""
import sys

print("hello from stdout", flush=True)
print("hello from stderr", file=sys.stderr, flush=True)
for i in range(3):
    print(f"line {i} of 3", flush=True)
print("done", flush=True)
