#!POPCORN leaderboard script
"""A long-running program for the Cancel test: says it started (with its pid), then waits."""
import os
import time

print(f"slow_script started pid={os.getpid()}", flush=True)
for i in range(600):
    print(f"tick {i}", flush=True)
    time.sleep(0.5)
print("slow_script finished without being cancelled", flush=True)
