// The cooperative-groups kernels on the GPU: coop_groups.cuh compiled by
// nvcc, with CUDA's own <cooperative_groups.h>.
#include <string>

#include "coop_groups.cuh"
#include "cudalab/device_info.hpp"

namespace coop_groups {

const Kernels& gpu_kernels() { return kernels(); }

std::string gpu_unavailable_reason() { return cudalab::has_gpu() ? "" : cudalab::no_gpu_reason(); }

}  // namespace coop_groups
