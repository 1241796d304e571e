// The TMA multicast kernel on the GPU: tma_multicast.cuh compiled by nvcc,
// the wrapper as inline PTX (cp.async.bulk.tensor ... .multicast::cluster,
// sm_90) and the tensor maps encoded by the driver.
#include <string>

#include "cudalab/device_info.hpp"
#include "tma_multicast.cuh"

namespace tma_multicast {

const Kernels& gpu_kernels() { return kernels(); }

std::string gpu_unavailable_reason() {
  return cudalab::missing_capability_reason(9, "TMA multicast over a thread block cluster");
}

}  // namespace tma_multicast
