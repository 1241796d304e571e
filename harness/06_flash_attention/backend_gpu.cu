// Lab 06 on the GPU, built twice like backend_emu.cpp.
#include <cstdint>
#include <memory>
#include <string>

#include "backend_impl.hpp"
#include "cudalab/harness/gpu_probe.hpp"

namespace lab06::harness {

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

void naive_on_device(const float* q, const float* k, const float* v, float* scores, float* o,
                     const Attention& shape) {
  lab06::naive_attention(q, k, v, scores, o, lab_shape(shape));
}

void flash_on_device(const float* q, const float* k, const float* v, float* o, float* lse,
                     const Attention& shape) {
  lab06::flash_forward(q, k, v, o, lse, lab_shape(shape));
}

void flash_bf16_on_device(const void* q, const void* k, const void* v, void* o, float* lse,
                          const Attention& shape) {
  lab06::flash_forward_bf16(
      static_cast<const std::uint16_t*>(q), static_cast<const std::uint16_t*>(k),
      static_cast<const std::uint16_t*>(v), static_cast<std::uint16_t*>(o), lse, lab_shape(shape));
}

void flash_backward_on_device(const float* q, const float* k, const float* v, const float* o,
                              const float* d_o, const float* lse, float* delta, float* dq,
                              float* dk, float* dv, const Attention& shape) {
  lab06::flash_backward(q, k, v, o, d_o, lse, delta, dq, dk, dv, lab_shape(shape));
}

}  // namespace

DeviceFunctions gpu_device_functions() {
  return {naive_on_device, flash_on_device, flash_bf16_on_device, flash_backward_on_device};
}
#endif

}  // namespace lab06::harness
