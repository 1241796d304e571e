// Lab 02, exercise 1: fp32 -> fp16, bf16 and TF32, bit by bit.
//
// A GPU converts with one instruction (__float2half_rn, cvt.rna.tf32.f32).
// Here you write what that instruction does, with integer operations on the
// bit patterns, so that you know which numbers each format holds and where a
// value lands when it cannot be held:
//
//   fp32  s eeeeeeee fffffffffffffffffffffff   bias 127
//   fp16  s eeeee    ffffffffff                bias 15: largest 65504, subnormal below 2^-14
//   bf16  s eeeeeeee fffffff                   the upper half of fp32
//   TF32  s eeeeeeee ffffffffff                kept as an fp32 pattern whose low 13 bits are 0
//
// Your results must be the H200's, bit for bit: the tests convert every fp16
// and bf16 value, the midpoints between neighbours and the floats next to
// them, random floats from 2^-149 to infinity, NaNs and the TF32 ties.
//
// The exercise is the TODO regions of this file, each from its `begin` line
// to its `end` line; README.md says what it wants.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "cudalab/kernel.hpp"
#include "precision_types.hpp"

namespace lab02 {
inline namespace CUDALAB_BACKEND {

// A float's bit pattern and back. memcpy, not a cast: static_cast<uint32_t>(x)
// would convert the value (1.5f -> 1). Compilers turn it into a register move.
__host__ __device__ inline std::uint32_t bits_of(float x) {
  std::uint32_t bits;
  memcpy(&bits, &x, sizeof bits);
  return bits;
}

__host__ __device__ inline float float_with_bits(std::uint32_t bits) {
  float x;
  memcpy(&x, &bits, sizeof x);
  return x;
}

// Drops the low `dropped` bits of `value` (0 < dropped < 32), rounding to
// nearest, ties to even: the one rounding step that fp16, bf16 and TF32
// share. A carry out of the kept bits is what the encodings want: it moves a
// fraction of all ones to the next binade, or the largest value to infinity.
__host__ __device__ inline std::uint32_t drop_bits_nearest_even(std::uint32_t value, int dropped) {
  // TODO(ex1) begin, about 5 lines: round instead of truncating. Compare what
  // is dropped with half of the kept bits' last place; on a tie, round to the
  // kept value whose last bit is 0. (The stub truncates: it rounds toward zero.)
  const std::uint32_t kept = value >> dropped;
  const std::uint32_t rest = value & ((1u << dropped) - 1u);
  const std::uint32_t half = 1u << (dropped - 1);
  const bool round_up = rest > half || (rest == half && (kept & 1u) != 0);
  return kept + (round_up ? 1u : 0u);
  // TODO(ex1) end
}

// fp32 -> fp16, round to nearest even, as __float2half_rn.
__host__ __device__ inline std::uint16_t round_to_fp16(float x) {
  const std::uint32_t bits = bits_of(x);
  const std::uint32_t sign = (bits >> 16) & 0x8000u;  // fp32's sign bit, moved to bit 15
  const std::uint32_t magnitude = bits & 0x7fffffffu;
  // TODO(ex1) begin, about 2 lines: NaN and infinity. Every NaN becomes 0x7fff
  // (the one NaN the H200 returns, whatever the payload); an infinity keeps its sign.
  if (magnitude > 0x7f800000u) return 0x7fffu;
  if (magnitude == 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7c00u);
  // TODO(ex1) end
  const int exponent = static_cast<int>(magnitude >> 23) - 127;  // |x| = 1.f * 2^exponent
  if (exponent >= -14) {
    // TODO(ex1) begin, about 3 lines: x is normal in fp16, or too large. Rebias
    // the exponent field (127 -> 15) and round 23 fraction bits to 10 in one
    // step; whatever rounds to 0x7c00 or beyond (65520 and up) is infinity.
    std::uint32_t half = drop_bits_nearest_even(magnitude - (112u << 23), 13);
    if (half > 0x7c00u) half = 0x7c00u;
    return static_cast<std::uint16_t>(sign | half);
    // TODO(ex1) end
  }
  // TODO(ex1) begin, about 3 lines: below 2^-14 fp16 is subnormal: its pattern
  // is the value in units of 2^-24. Round the significand (with its leading 1)
  // to those units; values below 2^-25 round to 0 (and fp32 subnormals are there).
  if (exponent < -25) return static_cast<std::uint16_t>(sign);
  const std::uint32_t significand = (magnitude & 0x7fffffu) | 0x800000u;
  return static_cast<std::uint16_t>(sign | drop_bits_nearest_even(significand, -exponent - 1));
  // TODO(ex1) end
}

// fp32 -> bf16, round to nearest even, as __float2bfloat16_rn.
__host__ __device__ inline std::uint16_t round_to_bf16(float x) {
  const std::uint32_t bits = bits_of(x);
  const std::uint32_t sign = (bits >> 16) & 0x8000u;
  // TODO(ex1) begin, about 3 lines: bf16 is fp32 without its low 16 bits, so one
  // rounding handles normals, subnormals and overflow alike. Every NaN becomes 0x7fff.
  const std::uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return 0x7fffu;
  return static_cast<std::uint16_t>(sign | drop_bits_nearest_even(magnitude, 16));
  // TODO(ex1) end
}

// fp32 -> TF32 (an fp32 pattern with its low 13 bits zero), three ways:
//   toward_zero   what a TF32 mma.sync does to raw fp32 operands
//   ties_away     cvt.rna.tf32.f32, what wmma::__float_to_tf32 compiles to
//   nearest_even  what cuBLAS does to its inputs in TF32 mode
// 0x3f801000 (halfway between TF32 1.0 and 1 + 2^-10) becomes 0x3f802000 ties
// away, 0x3f800000 otherwise; 0x3f801800 becomes 0x3f802000 but toward zero.
// (`rounding` is [[maybe_unused]] only so that the stub in labs/ compiles
// without a warning.)
__host__ __device__ inline float round_to_tf32(float x, [[maybe_unused]] Tf32Rounding rounding) {
  const std::uint32_t bits = bits_of(x);
  const std::uint32_t sign = bits & 0x80000000u;
  // TODO(ex1) begin, about 3 lines: NaN, as the H200 does it. Ties away
  // (cvt.rna) clears the low 13 bits of a NaN like any pattern, sign kept (so
  // a NaN whose payload is all in those bits becomes an infinity); toward zero
  // and nearest even (cvt.rz, cvt.rn) return 0x7fffe000 for every NaN.
  if ((bits & 0x7fffffffu) > 0x7f800000u) {
    return float_with_bits(rounding == Tf32Rounding::ties_away ? bits & ~0x1fffu : 0x7fffe000u);
  }
  // TODO(ex1) end
  std::uint32_t magnitude = bits & 0x7fffffffu;  // a carry out of the fraction moves up a binade
  // TODO(ex1) begin, about 11 lines: the three roundings of the low 13 bits of
  // the magnitude, then clear them. (A carry may reach infinity: that is right.)
  switch (rounding) {
    case Tf32Rounding::toward_zero:
      break;
    case Tf32Rounding::ties_away:  // add half a TF32 step, then truncate
      magnitude += 0x1000u;
      break;
    case Tf32Rounding::nearest_even:
      magnitude = drop_bits_nearest_even(magnitude, 13) << 13;
      break;
  }
  return float_with_bits(sign | (magnitude & ~0x1fffu));
  // TODO(ex1) end
}

// Given: one thread per element. The index is 64-bit so that a grid of more
// than 2^31 threads does not overflow it.
__global__ void to_fp16_kernel(std::uint16_t* out, const float* in, int n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = round_to_fp16(in[i]);
}

__global__ void to_bf16_kernel(std::uint16_t* out, const float* in, int n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = round_to_bf16(in[i]);
}

__global__ void to_tf32_kernel(float* out, const float* in, int n, Tf32Rounding rounding) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = round_to_tf32(in[i], rounding);
}

inline int conversion_blocks(int n) {
  if (n < 0) throw std::invalid_argument("conversion: n must be >= 0");
  return n / 256 + (n % 256 != 0 ? 1 : 0);  // (n + 255) / 256 would overflow near INT_MAX
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
