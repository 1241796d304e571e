// The cluster kernels on the GPU: cluster.cuh compiled by nvcc, with CUDA's
// own <cooperative_groups.h>. Clusters need compute capability 9.0.
#include <string>

#include "cluster.cuh"
#include "cudalab/device_info.hpp"

namespace cluster {

const Kernels& gpu_kernels() { return kernels(); }

std::string gpu_unavailable_reason() {
  return cudalab::missing_capability_reason(9, "thread block clusters");
}

}  // namespace cluster
