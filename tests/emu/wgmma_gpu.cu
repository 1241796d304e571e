// The wgmma kernels on the GPU: wgmma.cuh compiled by nvcc for sm_90a.
#include <string>

#include "cudalab/device_info.hpp"
#include "wgmma.cuh"

namespace wgmma_tests {

const Kernels& gpu_kernels() { return kernels(); }

std::string gpu_unavailable_reason() {
  return cudalab::missing_capability_reason(9, "wgmma (sm_90a)", true);
}

}  // namespace wgmma_tests
