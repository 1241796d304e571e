// Device flags, registered memory and profiler ranges on the GPU:
// host_runtime.cuh compiled by nvcc.
#include <string>

#include "cudalab/device_info.hpp"
#include "host_runtime.cuh"

namespace host_runtime {
const Kernels& gpu_kernels() { return kernels(); }
std::string gpu_unavailable_reason() { return cudalab::has_gpu() ? "" : cudalab::no_gpu_reason(); }
}  // namespace host_runtime
