#!POPCORN leaderboard script
"""The kernels of a load_inline extension, for the timing CodeLens checks. On a GPU machine the HIP source is built
with load_inline; here the test stand-in for rocprofv3 replays a recorded trace whose kernels carry these names."""

HIP_SRC = r"""
#include <hip/hip_runtime.h>

template <typename T>
__global__ void addition_kernel(T* out, const T* a, const T* b, int n, int m) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n * m) out[i] = a[i] + b[i];
}

__global__ void subtract_kernel(float* out, const float* a, const float* b, int n, int m) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n * m) out[i] = a[i] - b[i];
}

__global__ void scale_kernel(float* out, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] *= s;
}
"""

try:
    from torch.utils.cpp_extension import load_inline
except ImportError:
    load_inline = None

print("timed_kernels: HIP source of", HIP_SRC.count("__global__"), "kernels", "(load_inline available)" if load_inline else "(no torch here)")
