// The constant- and pitched-memory kernels on the GPU: constant_pitched.cuh
// compiled by nvcc.
#include <string>

#include "constant_pitched.cuh"
#include "cudalab/device_info.hpp"

namespace constant_pitched {

const Kernels& gpu_kernels() { return kernels(); }

std::string gpu_unavailable_reason() { return cudalab::has_gpu() ? "" : cudalab::no_gpu_reason(); }

}  // namespace constant_pitched
