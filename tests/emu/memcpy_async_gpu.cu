// The memcpy_async kernels on the GPU: memcpy_async.cuh compiled by nvcc
// against libcu++'s <cuda/barrier> and <cuda/pipeline>.
#include <string>

#include "cudalab/device_info.hpp"
#include "memcpy_async.cuh"

namespace memcpy_async_tests {

const Kernels& gpu_kernels() { return kernels(); }

std::string gpu_unavailable_reason() {
  return cudalab::missing_capability_reason(8, "an asynchronous cuda::memcpy_async");
}

}  // namespace memcpy_async_tests
