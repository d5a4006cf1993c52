#!POPCORN leaderboard vectoradd
#!POPCORN gpu MI300
import torch
from torch.utils.cpp_extension import load_inline

CPP_SRC = "torch::Tensor add(torch::Tensor a, torch::Tensor b);"

HIP_SRC = r"""
#include <hip/hip_runtime.h>
#include <torch/extension.h>

// __global__ void in_a_comment(float* x) {}
__global__ void add_kernel(const float* a, const float* b, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + b[i];
}

template <typename T>
__global__ void copy_kernel(const T* src, T* dst, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = src[i];
}

torch::Tensor add(torch::Tensor a, torch::Tensor b) {
    auto out = torch::empty_like(a);
    int n = a.numel();
    add_kernel<<<(n + 255) / 256, 256>>>(a.data_ptr<float>(), b.data_ptr<float>(), out.data_ptr<float>(), n);
    return out;
}
"""

module = load_inline(
    name="vectoradd_hip",
    cpp_sources=[CPP_SRC],
    cuda_sources=[HIP_SRC],
    functions=["add"],
    extra_cuda_cflags=["-O3"],
)


def custom_kernel(data):
    a, b = data
    return module.add(a, b)
