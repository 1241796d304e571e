// Lab 01 on the GPU: the lab's .cuh files compiled by nvcc, behind Backend.
// Built twice, like backend_emu.cpp.
#include <memory>
#include <string>

#include "backend.hpp"
#include "backend_impl.hpp"
#include "cudalab/harness/gpu_probe.hpp"

namespace lab01::harness {

#if CUDALAB_REFERENCE
std::unique_ptr<Backend> make_reference_gpu_backend(std::string* why_not) {
  if (!cudalab::harness::gpu_available(why_not)) return nullptr;
  return std::make_unique<LabBackend>();
}
#else
std::unique_ptr<Backend> make_gpu_backend(std::string* why_not) {
  if (!cudalab::harness::gpu_available(why_not)) return nullptr;
  return std::make_unique<LabBackend>();
}

DeviceFunctions gpu_device_functions() {
  DeviceFunctions functions;
  functions.broadcast_sum = lab01::on_gpu::broadcast_sum;
  functions.broadcast_sum_coalesced = lab01::on_gpu::broadcast_sum_coalesced;
  functions.broadcast_add_in_place = [](float* a, const float* b, int x, int y, int block_size) {
    lab01::on_gpu::broadcast_add<float>(a, a, {x, y}, b, {y}, block_size);
  };
  functions.broadcast_sum_vec4 = lab01::on_gpu::broadcast_sum_vec4;
  return functions;
}
#endif

}  // namespace lab01::harness
