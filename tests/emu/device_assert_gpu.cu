// The assert kernels on the GPU: device_assert.cuh compiled by nvcc.
#include <string>

#include "cudalab/device_info.hpp"
#include "device_assert.cuh"

namespace device_assert {
const Kernels& gpu_kernels() { return kernels(&gpu_ndebug); }
std::string gpu_unavailable_reason() { return cudalab::has_gpu() ? "" : cudalab::no_gpu_reason(); }
}  // namespace device_assert
