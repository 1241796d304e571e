// The wgmma kernels on the GPU: wgmma.cuh compiled by nvcc for sm_90a.
#include <string>

#include "cudalab/device_info.hpp"
#include "wgmma.cuh"

namespace wgmma_tests {

const Kernels& gpu_kernels() { return kernels(); }

std::string gpu_unavailable_reason() {
  if (!cudalab::has_gpu()) return cudalab::no_gpu_reason();
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  if (prop.major != 9) return "wgmma needs an sm_90 GPU (Hopper: H100, H200)";
  return "";
}

}  // namespace wgmma_tests
