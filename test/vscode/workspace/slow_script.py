#!POPCORN leaderboard script
"""A long-running program for the Cancel test: says it started (with a marker the test finds it by on the host:
inside the job's PID namespace its own pid means nothing out there), then waits."""
import os
import sys
import time
import uuid

if len(sys.argv) < 2:
    # the same process (same pid), with the marker in its command line
    os.execv(sys.executable, [sys.executable, os.path.abspath(__file__), f"kr-mark-{uuid.uuid4().hex}"])
print(f"slow_script started mark={sys.argv[1]}", flush=True)
for i in range(600):
    print(f"tick {i}", flush=True)
    time.sleep(0.5)
print("slow_script finished without being cancelled", flush=True)
