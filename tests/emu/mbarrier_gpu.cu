// The mbarrier kernels on the GPU: mbarrier.cuh compiled by nvcc, the
// wrappers as inline PTX (sm_90).
#include <string>

#include "cudalab/device_info.hpp"
#include "mbarrier.cuh"

namespace mbarrier_tests {

const Kernels& gpu_kernels() { return kernels(); }

std::string gpu_unavailable_reason() {
  return cudalab::missing_capability_reason(9, "mbarrier expect_tx and cp.async.bulk");
}

}  // namespace mbarrier_tests
