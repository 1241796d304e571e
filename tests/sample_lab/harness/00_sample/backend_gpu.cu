// Lab 00 on the GPU.
#include <memory>
#include <string>

#include "backend_impl.hpp"
#include "cudalab/harness/gpu_probe.hpp"

namespace lab00::harness {

std::unique_ptr<Backend> make_gpu_backend(std::string* why_not) {
  if (!cudalab::harness::gpu_available(why_not)) return nullptr;
  return std::make_unique<on_gpu::LabBackend>();
}

}  // namespace lab00::harness
