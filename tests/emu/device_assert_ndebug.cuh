// A kernel whose assert fails, built with NDEBUG: assert is off on both
// backends, and the kernel runs on.
#pragma once

#define NDEBUG 1
#include <cassert>

#include "cudalab/check.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/kernel.hpp"

namespace device_assert {
inline namespace CUDALAB_BACKEND {
namespace device {

__global__ void ndebug_kernel(int* out) {
  assert(out == nullptr);
  *out = 1;
}

}  // namespace device

inline int ndebug() {
  cudalab::DeviceBuffer<int> out(1);
  device::ndebug_kernel<<<1, 1>>>(out.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  int value = 0;
  CUDA_CHECK(cudaMemcpy(&value, out.data(), sizeof value, cudaMemcpyDeviceToHost));
  return value;
}

}  // namespace CUDALAB_BACKEND
}  // namespace device_assert
