// The shared-layout kernels on the GPU: shared_layout.cuh compiled by nvcc.
#include <string>

#include "cudalab/device_info.hpp"
#include "shared_layout.cuh"

namespace shared_layout {

std::vector<std::size_t> offsets_on_gpu(Layout layout) { return offsets(layout); }

std::string gpu_unavailable_reason() { return cudalab::has_gpu() ? "" : cudalab::no_gpu_reason(); }

}  // namespace shared_layout
