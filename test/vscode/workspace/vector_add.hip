//!POPCORN leaderboard script
// Vector add in HIP. A commented-out kernel gets no lens: __global__ void old_kernel(float* x) {}
#include <hip/hip_runtime.h>
#include <cstdio>

#define CHECK(cmd) do { hipError_t e = (cmd); if (e != hipSuccess) { printf("HIP error %s\n", hipGetErrorString(e)); return 1; } } while (0)
#define DECLARE_KERNEL(n) __global__ void n(float* x)

__global__ void vector_add(const float* __restrict__ a, const float* __restrict__ b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) scale(float* x, float s, int n) {
  __shared__ float tile[BLOCK];
  int i = blockIdx.x * BLOCK + threadIdx.x;
  tile[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  if (i < n) x[i] = tile[threadIdx.x] * s;
}

__global__ void declared_only(int* p);

__device__ float twice(float v) { return 2.0f * v; }

int main() {
  const int n = 1 << 20;
  float *a, *b, *c;
  CHECK(hipMalloc(&a, n * sizeof(float)));
  CHECK(hipMalloc(&b, n * sizeof(float)));
  CHECK(hipMalloc(&c, n * sizeof(float)));
  vector_add<<<(n + 255) / 256, 256>>>(a, b, c, n);
  hipLaunchKernelGGL(scale<256>, dim3((n + 255) / 256), dim3(256), 0, 0, c, 2.0f, n);
  CHECK(hipDeviceSynchronize());
  printf("done: n=%d\n", n);
  return 0;
}
