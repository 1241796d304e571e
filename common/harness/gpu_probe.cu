#include <string>

#include "cudalab/device_info.hpp"
#include "cudalab/harness/gpu_probe.hpp"

namespace cudalab::harness {

bool gpu_available(std::string* why_not) {
  const cudalab::on_gpu::GpuAvailability gpus = cudalab::on_gpu::probe_gpus();
  if (gpus.count == 0 && why_not != nullptr) *why_not = gpus.reason;
  return gpus.count > 0;
}

}  // namespace cudalab::harness
