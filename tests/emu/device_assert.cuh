// The kernels of device_assert.hpp with assert on, for both backends.
#pragma once

// The build may define NDEBUG (release presets do): these kernels test assert
// itself, so it is on here whatever the build says (assert.h reads NDEBUG at
// each inclusion).
#undef NDEBUG
#include <cassert>
#include <cstdio>
#include <vector>

#include "cudalab/check.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/kernel.hpp"
#include "device_assert.hpp"

namespace device_assert {
inline namespace CUDALAB_BACKEND {

namespace device {

constexpr int kDoubledAssertLine = __LINE__ + 4;
__global__ void doubled_kernel(const int* in, int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    assert(in[i] >= 0);
    out[i] = 2 * in[i];
  }
}

// The Programming Guide's example ("Assertion"), retyped.
constexpr int kGuideAssertLine = __LINE__ + 5;
__global__ void testAssert(void) {
  int is_one = 1;
  int should_be_one = 0;
  assert(is_one);
  assert(should_be_one);
}

}  // namespace device

inline std::vector<int> doubled(const std::vector<int>& in, unsigned block) {
  const int n = static_cast<int>(in.size());
  cudalab::DeviceBuffer<int> d_in(in.size()), d_out(in.size());
  CUDA_CHECK(cudaMemcpy(d_in.data(), in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  device::doubled_kernel<<<(n + block - 1) / block, block>>>(d_in.data(), d_out.data(), n);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<int> out(in.size());
  CUDA_CHECK(cudaMemcpy(out.data(), d_out.data(), n * sizeof(int), cudaMemcpyDeviceToHost));
  return out;
}

inline Failure doubled_failing(std::vector<int> in, unsigned block, unsigned bad) {
  in[bad] = -1 - in[bad];
  const int n = static_cast<int>(in.size());
  // Raw pointers: a DeviceBuffer's cudaFree would fail after the assert.
  int *d_in = nullptr, *d_out = nullptr;
  CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  CUDA_CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  Failure f;
  device::doubled_kernel<<<(n + block - 1) / block, block>>>(d_in, d_out, n);
  f.launch = cudaGetLastError();
  f.synchronize = cudaDeviceSynchronize();
  f.again = cudaDeviceSynchronize();
  void* p = nullptr;
  f.malloc_after = cudaMalloc(&p, 16);
  f.last_error = cudaGetLastError();
  std::fflush(stderr);
  return f;
}

inline cudaError_t programming_guide() {
  device::testAssert<<<1, 1>>>();
  const cudaError_t e = cudaDeviceSynchronize();
  std::fflush(stderr);
  return e;
}

inline const Kernels& kernels(int (*ndebug)()) {
  static const Kernels table{&doubled, &doubled_failing, &programming_guide, ndebug};
  return table;
}

}  // namespace CUDALAB_BACKEND
}  // namespace device_assert
