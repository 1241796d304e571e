#include <string>

#include "cudalab/device_info.hpp"
#include "cudalab/harness/gpu_probe.hpp"

namespace cudalab::harness {

bool gpu_available(std::string* why_not) {
  const cudalab::on_gpu::GpuAvailability gpus = cudalab::on_gpu::probe_gpus();
  if (gpus.count == 0 && why_not != nullptr) *why_not = gpus.reason;
  return gpus.count > 0;
}

bool gpu_runs_sm90a(std::string* why_not) {
  if (!gpu_available(why_not)) return false;
  const cudalab::DeviceFacts gpu = cudalab::on_gpu::query_device();
  const bool hopper = gpu.compute_capability_major == 9 && gpu.compute_capability_minor == 0;
  if (!hopper && why_not != nullptr) {
    *why_not = gpu.name + " has compute capability " +
               std::to_string(gpu.compute_capability_major) + "." +
               std::to_string(gpu.compute_capability_minor) +
               "; sm_90a code (wgmma, setmaxnreg) runs on Hopper (9.0) only";
  }
  return hopper;
}

}  // namespace cudalab::harness
