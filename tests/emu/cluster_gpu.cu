// The cluster kernels on the GPU: cluster.cuh compiled by nvcc, with CUDA's
// own <cooperative_groups.h>. Clusters need compute capability 9.0.
#include <string>

#include "cluster.cuh"
#include "cudalab/device_info.hpp"

namespace cluster {

const Kernels& gpu_kernels() { return kernels(); }

std::string gpu_unavailable_reason() {
  if (!cudalab::has_gpu()) return cudalab::no_gpu_reason();
  cudaDeviceProp p{};
  CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
  if (p.major < 9)
    return "thread block clusters need compute capability 9.0 (this GPU: " +
           std::to_string(p.major) + "." + std::to_string(p.minor) + ")";
  return "";
}

}  // namespace cluster
