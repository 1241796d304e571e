// The TMA kernels on the GPU: tma.cuh compiled by nvcc, the wrappers as
// inline PTX and the tensor maps encoded by the driver (sm_90).
#include <string>

#include "cudalab/device_info.hpp"
#include "tma.cuh"

namespace tma_tests {

const Kernels& gpu_kernels() { return kernels(); }

std::string gpu_unavailable_reason() {
  if (!cudalab::has_gpu()) return cudalab::no_gpu_reason();
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  if (prop.major < 9) return "TMA (cp.async.bulk.tensor) needs sm_90 (Hopper) or newer";
  return "";
}

}  // namespace tma_tests
