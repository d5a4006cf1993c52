"""Prints numbered lines, alternating stdout and stderr: `python3 numbered_lines.py [COUNT] [DELAY_MS]`.

Each line is `out <n>` or `err <n>` so a test can check that every line arrived exactly once and in order
(per stream). An optional delay (milliseconds between lines) spreads the output over time, for tests that
cut a connection in the middle of the stream.
"""
import sys
import time

count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
delay = float(sys.argv[2]) / 1000 if len(sys.argv) > 2 else 0.0
for n in range(1, count + 1):
    if n % 2:
        sys.stdout.write(f"out {n}\n")
        sys.stdout.flush()
    else:
        sys.stderr.write(f"err {n}\n")
        sys.stderr.flush()
    if delay:
        time.sleep(delay)
print(f"finished {count}", flush=True)
