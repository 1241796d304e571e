// Lab 02, exercise 1: fp32 -> fp16, bf16 and TF32, bit by bit.
// (Placeholder: the exercise is being written.)
#pragma once

#include <cstdint>
#include <stdexcept>

#include "cudalab/kernel.hpp"
#include "precision_types.hpp"

namespace lab02 {
inline namespace CUDALAB_BACKEND {

__host__ __device__ inline std::uint16_t round_to_fp16(float x) { return 0; }
__host__ __device__ inline std::uint16_t round_to_bf16(float x) { return 0; }
__host__ __device__ inline float round_to_tf32(float x, Tf32Rounding rounding) { return x; }

__global__ void to_fp16_kernel(std::uint16_t* out, const float* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = round_to_fp16(in[i]);
}

__global__ void to_bf16_kernel(std::uint16_t* out, const float* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = round_to_bf16(in[i]);
}

__global__ void to_tf32_kernel(float* out, const float* in, int n, Tf32Rounding rounding) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = round_to_tf32(in[i], rounding);
}

inline int conversion_blocks(int n) {
  if (n < 0) throw std::invalid_argument("conversion: n must be >= 0");
  return (n + 255) / 256;
}

inline void to_fp16(std::uint16_t* out, const float* in, int n) {
  if (conversion_blocks(n) > 0) to_fp16_kernel<<<conversion_blocks(n), 256>>>(out, in, n);
}
inline void to_bf16(std::uint16_t* out, const float* in, int n) {
  if (conversion_blocks(n) > 0) to_bf16_kernel<<<conversion_blocks(n), 256>>>(out, in, n);
}
inline void to_tf32(float* out, const float* in, int n, Tf32Rounding rounding) {
  if (conversion_blocks(n) > 0) to_tf32_kernel<<<conversion_blocks(n), 256>>>(out, in, n, rounding);
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab02
