// The graph code on the GPU: graphs.cuh compiled by nvcc.
#include <string>

#include "cudalab/device_info.hpp"
#include "graphs.cuh"

namespace graphs {
const Kernels& gpu_kernels() { return kernels(); }
std::string gpu_unavailable_reason() { return cudalab::has_gpu() ? "" : cudalab::no_gpu_reason(); }
}  // namespace graphs
