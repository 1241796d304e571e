// The TMA kernels on the GPU: tma.cuh compiled by nvcc, the wrappers as
// inline PTX and the tensor maps encoded by the driver (sm_90).
#include <string>

#include "cudalab/device_info.hpp"
#include "tma.cuh"

namespace tma_tests {

const Kernels& gpu_kernels() { return kernels(); }

std::string gpu_unavailable_reason() {
  return cudalab::missing_capability_reason(9, "TMA (cp.async.bulk.tensor)");
}

}  // namespace tma_tests
