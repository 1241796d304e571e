// The attribute queries on the GPU: device_attributes.cuh compiled by nvcc.
#include <string>

#include "cudalab/device_info.hpp"
#include "device_attributes.cuh"

namespace device_attributes {
const Kernels& gpu_kernels() { return kernels(); }
std::string gpu_unavailable_reason() { return cudalab::has_gpu() ? "" : cudalab::no_gpu_reason(); }
}  // namespace device_attributes
