// Lab 06 on the GPU, built twice like backend_emu.cpp.
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
#endif

}  // namespace lab06::harness
