#!POPCORN leaderboard script
"""Softmax with Triton. The docstring mentions def custom_kernel( but that is not code."""
import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 128}), triton.Config({"BLOCK": 256})], key=["n_cols"])
@triton.jit
def softmax_kernel(out_ptr, in_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * n_cols + offs, mask=offs < n_cols, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * n_cols + offs, num / tl.sum(num, axis=0), mask=offs < n_cols)


@triton.jit()
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) + tl.load(y_ptr + offs), mask=offs < n)


# @triton.jit
# def commented_out(x): pass


def custom_kernel(data):
    x = data
    out = torch.empty_like(x)
    softmax_kernel[(x.shape[0],)](out, x, x.shape[1])
    return out
