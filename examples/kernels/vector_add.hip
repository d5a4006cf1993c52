//!POPCORN leaderboard script
// Sample HIP kernel for the `script` leaderboard (needs hipcc and an AMD GPU): adds two vectors on the
// device and checks the result on the host.
#include <hip/hip_runtime.h>
#include <cstdio>
#include <vector>

#define HIP_CHECK(expr)                                                          \
  do {                                                                           \
    hipError_t err_ = (expr);                                                    \
    if (err_ != hipSuccess) {                                                    \
      std::fprintf(stderr, "%s failed: %s\n", #expr, hipGetErrorString(err_));   \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

__global__ void vector_add(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

int main() {
  const int n = 1 << 20;
  std::vector<float> a(n, 1.0f), b(n, 2.0f), out(n, 0.0f);
  float *da = nullptr, *db = nullptr, *dout = nullptr;
  HIP_CHECK(hipMalloc(&da, n * sizeof(float)));
  HIP_CHECK(hipMalloc(&db, n * sizeof(float)));
  HIP_CHECK(hipMalloc(&dout, n * sizeof(float)));
  HIP_CHECK(hipMemcpy(da, a.data(), n * sizeof(float), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(db, b.data(), n * sizeof(float), hipMemcpyHostToDevice));
  const int block = 256;
  vector_add<<<(n + block - 1) / block, block>>>(da, db, dout, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(out.data(), dout, n * sizeof(float), hipMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += out[i] != 3.0f;
  std::printf("vector_add: %d elements, %d wrong\n", n, wrong);
  HIP_CHECK(hipFree(da));
  HIP_CHECK(hipFree(db));
  HIP_CHECK(hipFree(dout));
  return wrong == 0 ? 0 : 1;
}
