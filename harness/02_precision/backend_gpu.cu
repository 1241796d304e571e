// Lab 02 on the GPU (cuBLAS behind cudalab::blas), built twice like backend_emu.cpp.
#include <memory>
#include <string>

#include "backend_impl.hpp"
#include "cudalab/harness/gpu_probe.hpp"

namespace lab02::harness {

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

void tc_gemm_fp16_on_device(const void* a, const void* b, float* c, int m, int n, int k) {
  lab02::tc_gemm_fp16(static_cast<const __half*>(a), static_cast<const __half*>(b), c, m, n, k);
}

void tc_gemm_tf32_on_device(const float* a, const float* b, float* c, int m, int n, int k) {
  lab02::tc_gemm_tf32(a, b, c, m, n, k);
}

}  // namespace

DeviceFunctions gpu_device_functions() { return {tc_gemm_fp16_on_device, tc_gemm_tf32_on_device}; }
#endif

}  // namespace lab02::harness
