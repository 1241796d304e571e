// The device probes on the GPU: device_probes.cuh compiled by nvcc. They
// need two GPUs.
#include <string>

#include "cudalab/device_info.hpp"
#include "device_probe_kernels.cuh"
#include "device_probes.cuh"

namespace device_probes {

Observation observe_on_gpu(Probe probe) {
  static const bool loaded = (load_kernels(), true);
  static_cast<void>(loaded);
  return observe(probe);
}

std::string gpu_unavailable_reason() {
  const cudalab::GpuAvailability gpus = cudalab::probe_gpus();
  if (gpus.count == 0) return gpus.reason;
  if (gpus.count < 2) {
    return "the device probes need 2 GPUs; the driver reports " + std::to_string(gpus.count);
  }
  return "";
}

}  // namespace device_probes
