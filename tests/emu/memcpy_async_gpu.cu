// The memcpy_async kernels on the GPU: memcpy_async.cuh compiled by nvcc
// against libcu++'s <cuda/barrier> and <cuda/pipeline>.
#include <string>

#include "cudalab/device_info.hpp"
#include "memcpy_async.cuh"

namespace memcpy_async_tests {

const Kernels& gpu_kernels() { return kernels(); }

std::string gpu_unavailable_reason() {
  if (!cudalab::has_gpu()) return cudalab::no_gpu_reason();
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  // Older GPUs run libcu++'s copies synchronously: nothing asynchronous to test.
  if (prop.major < 8) return "cuda::memcpy_async is asynchronous from sm_80 (Ampere) on";
  return "";
}

}  // namespace memcpy_async_tests
