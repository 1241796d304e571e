// The one kernel lab 04 needs, given: acc[i] += in[i], queued on a rank's
// stream after the data arrived there. (Moving data is the lab's topic;
// adding is not.)
#pragma once

#include <algorithm>
#include <cstddef>

#include "cudalab/check.hpp"
#include "cudalab/kernel.hpp"

namespace lab04 {
inline namespace CUDALAB_BACKEND {

__global__ void add_into_kernel(float* acc, const float* in, std::size_t count) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    acc[i] += in[i];
  }
}

// acc[0, count) += in[0, count), on `stream` (of the current device).
inline void add_into(float* acc, const float* in, std::size_t count, cudaStream_t stream) {
  if (count == 0) return;
  constexpr unsigned kBlock = 256;
  // A grid-stride loop: enough blocks to fill an H200 (132 SMs) many times.
  const auto blocks =
      static_cast<unsigned>(std::min<std::size_t>((count + kBlock - 1) / kBlock, 4096));
  add_into_kernel<<<blocks, kBlock, 0, stream>>>(acc, in, count);
  CUDA_CHECK_LAUNCH();
}

// dst[0, count) = src[0, count), on `stream`; nothing when they are the same.
inline void copy_on(float* dst, const float* src, std::size_t count, cudaStream_t stream) {
  if (dst == src || count == 0) return;
  CUDA_CHECK(cudaMemcpyAsync(dst, src, count * sizeof(float), cudaMemcpyDeviceToDevice, stream));
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab04
