"""A script that prints a little and then fails with exit code 3 (the runner reports the run as failed)."""
import sys

print("about to fail", flush=True)
print("something went wrong", file=sys.stderr, flush=True)
sys.exit(3)
