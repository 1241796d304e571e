// The managed-memory code on the GPU: managed_memory.cuh compiled by nvcc.
#include <string>

#include "cudalab/device_info.hpp"
#include "managed_memory.cuh"

namespace managed_memory {
const Kernels& gpu_kernels() { return kernels(); }
std::string gpu_unavailable_reason() { return cudalab::has_gpu() ? "" : cudalab::no_gpu_reason(); }
}  // namespace managed_memory
