#!POPCORN leaderboard script
"""Prints its own lines mixed with lines shaped like rocprof's log noise: the noise is hidden, the program's lines stay."""
import sys

print("program line 1", flush=True)
print("[320.801]       perfetto.cc:47304 Configured tracing session 1, #sources:1, duration:0 ms", file=sys.stderr, flush=True)
print("W20250710 21:33:25.713947 140172743004992 simple_timer.cpp:55] [rocprofv3] tool initialization :: 0.16 sec", file=sys.stderr, flush=True)
print("program line 2 (stderr)", file=sys.stderr, flush=True)
print("[387.781]       perfetto.cc:60128 Tracing session 1 ended, total sessions:0", file=sys.stderr, flush=True)
print("program line 3", flush=True)
