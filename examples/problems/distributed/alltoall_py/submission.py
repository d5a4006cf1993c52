#!POPCORN leaderboard alltoall_py
"""Template submission for alltoall_py: send chunk d to rank d, receive one chunk from every rank."""
from task import input_t, output_t


def custom_kernel(data: input_t, comm) -> output_t:
    for dst in range(comm.world_size):
        if dst != comm.rank:
            comm.send(dst, data[dst])
    return [data[src] if src == comm.rank else comm.recv(src) for src in range(comm.world_size)]
