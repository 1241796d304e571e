// The mbarrier kernels on the GPU: mbarrier.cuh compiled by nvcc, the
// wrappers as inline PTX (sm_90).
#include <string>

#include "cudalab/device_info.hpp"
#include "mbarrier.cuh"

namespace mbarrier_tests {

const Kernels& gpu_kernels() { return kernels(); }

std::string gpu_unavailable_reason() {
  if (!cudalab::has_gpu()) return cudalab::no_gpu_reason();
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  if (prop.major < 9) return "mbarrier expect_tx and cp.async.bulk need sm_90 (Hopper) or newer";
  return "";
}

}  // namespace mbarrier_tests
