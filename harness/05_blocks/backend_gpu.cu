// Lab 05 on the GPU, built twice like backend_emu.cpp.
#include <memory>
#include <string>

#include "backend_impl.hpp"
#include "cudalab/harness/gpu_probe.hpp"

namespace lab05::harness {

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

namespace {

void softmax_on_device(const float* x, int rows, int columns, float* out) {
  lab05::softmax(x, rows, columns, columns, out, columns);
}

void matmul_on_device(const void* a, const void* b, float* c, int m, int n, int k, int group_m) {
  const auto* a_half = static_cast<const __half*>(a);
  const auto* b_half = static_cast<const __half*>(b);
  if (group_m > 0) {
    lab05::matmul_grouped(a_half, b_half, c, m, n, k, group_m);
  } else {
    lab05::matmul(a_half, b_half, c, m, n, k);
  }
}

}  // namespace

DeviceFunctions gpu_device_functions() {
  return {lab05::add, lab05::fused_activation, lab05::unfused_activation, softmax_on_device,
          matmul_on_device};
}
#endif

}  // namespace lab05::harness
