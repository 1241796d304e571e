// The node-API graph code on the GPU: graph_api.cuh compiled by nvcc.
#include <string>

#include "cudalab/device_info.hpp"
#include "graph_api.cuh"

namespace graph_api {
const Kernels& gpu_kernels() { return kernels(); }
std::string gpu_unavailable_reason() { return cudalab::has_gpu() ? "" : cudalab::no_gpu_reason(); }
}  // namespace graph_api
