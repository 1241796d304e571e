// Lab 02, exercise 4: predict the tensor core's result for one K-block.
// (Placeholder: the exercise is being written.)
#pragma once

#include <cstdint>
#include <stdexcept>

#include "cudalab/kernel.hpp"
#include "precision_types.hpp"

namespace lab02 {
inline namespace CUDALAB_BACKEND {

// d = c + a[0]*b[0] + ... + a[kb-1]*b[kb-1], kb = 16 (fp16, bf16) or 8 (TF32).
__host__ __device__ inline float predict_mma(const std::uint32_t* a, const std::uint32_t* b,
                                             float c, MmaFormat format) {
  return c;
}

__global__ void predict_mma_kernel(MmaFormat format, const std::uint32_t* a,
                                   const std::uint32_t* b, const float* c, float* d, int blocks) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int kb = cudalab::numerics::mma_k_block(format);
  if (i < blocks) d[i] = predict_mma(a + static_cast<long long>(i) * kb,
                                     b + static_cast<long long>(i) * kb, c[i], format);
}

inline void predict_mma_blocks(MmaFormat format, const std::uint32_t* a, const std::uint32_t* b,
                               const float* c, float* d, int blocks) {
  if (blocks < 0) throw std::invalid_argument("predict_mma_blocks: blocks must be >= 0");
  if (blocks > 0) predict_mma_kernel<<<(blocks + 127) / 128, 128>>>(format, a, b, c, d, blocks);
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab02
