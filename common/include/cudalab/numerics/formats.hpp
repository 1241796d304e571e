// fp32 <-> fp16 (IEEE binary16) and bf16 (bfloat16) as bit patterns, exactly
// as the H200 converts (__float2half_rn, __half2float, __float2bfloat16_rn,
// __bfloat162float; checked over every 16-bit pattern by tests/numerics).
//
//   fp32  s eeeeeeee fffffffffffffffffffffff   8 exponent bits, 23 fraction bits
//   fp16  s eeeee    ffffffffff                 5 exponent bits, 10 fraction bits
//   bf16  s eeeeeeee fffffff                    8 exponent bits,  7 fraction bits
#pragma once

#include <cstdint>

#include "cudalab/numerics/bits.hpp"

namespace cudalab::numerics {

inline constexpr std::uint16_t fp16_canonical_nan = 0x7fffu;
inline constexpr std::uint16_t fp16_infinity = 0x7c00u;
inline constexpr std::uint16_t bf16_canonical_nan = 0x7fffu;
inline constexpr std::uint16_t bf16_infinity = 0x7f80u;

// fp32 -> fp16, round to nearest even. Too large rounds to infinity; below
// 2^-14 the result is subnormal (steps of 2^-24); a NaN becomes 0x7fff.
CUDALAB_HOST_DEVICE inline std::uint16_t fp32_to_fp16_bits(float value) {
  const std::uint32_t bits = float_bits(value);
  const std::uint32_t sign = (bits >> 16) & 0x8000u;
  const std::uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return fp16_canonical_nan;
  if (magnitude == 0x7f800000u) return static_cast<std::uint16_t>(sign | fp16_infinity);
  const int exponent = static_cast<int>(magnitude >> 23) - 127;
  std::uint32_t half;
  if (exponent >= -14) {
    // Normal in fp16: rebias the exponent (127 -> 15) and round 23 -> 10
    // fraction bits; a carry moves to the next binade or to infinity.
    half = drop_bits_nearest_even(magnitude - (112u << 23), 13);
    if (half > fp16_infinity) half = fp16_infinity;
  } else {
    // Subnormal in fp16: the value in units of 2^-24, rounded. An fp32
    // subnormal (exponent field 0) is far below 2^-25 and rounds to zero.
    const std::uint32_t significand = (magnitude & 0x7fffffu) | 0x800000u;
    half = drop_bits_nearest_even(significand, -exponent - 1);
  }
  return static_cast<std::uint16_t>(sign | half);
}

// fp16 -> fp32 is exact; a NaN becomes the canonical fp32 NaN.
CUDALAB_HOST_DEVICE inline float fp16_bits_to_fp32(std::uint16_t half) {
  const std::uint32_t sign = static_cast<std::uint32_t>(half & 0x8000u) << 16;
  const std::uint32_t exponent_field = (half >> 10) & 0x1fu;
  const std::uint32_t fraction = half & 0x3ffu;
  if (exponent_field == 0x1fu) {
    return float_from_bits(fraction != 0 ? fp32_canonical_nan : (sign | 0x7f800000u));
  }
  if (exponent_field == 0) {
    // Zero or subnormal: fraction * 2^-24, exact in fp32.
    const float magnitude = static_cast<float>(fraction) * (1.0f / 16777216.0f);
    return float_from_bits(sign | float_bits(magnitude));
  }
  return float_from_bits(sign | ((exponent_field + 112u) << 23) | (fraction << 13));
}

// fp32 -> bf16, round to nearest even: bf16 is the upper half of fp32, so
// rounding 16 bits away handles normals, subnormals and overflow to infinity
// alike. A NaN becomes 0x7fff.
CUDALAB_HOST_DEVICE inline std::uint16_t fp32_to_bf16_bits(float value) {
  const std::uint32_t bits = float_bits(value);
  const std::uint32_t sign = (bits >> 16) & 0x8000u;
  const std::uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return bf16_canonical_nan;
  return static_cast<std::uint16_t>(sign | drop_bits_nearest_even(magnitude, 16));
}

// bf16 -> fp32 is exact: the bf16 pattern is the upper half (NaNs too).
CUDALAB_HOST_DEVICE inline float bf16_bits_to_fp32(std::uint16_t bf16) {
  return float_from_bits(static_cast<std::uint32_t>(bf16) << 16);
}

}  // namespace cudalab::numerics
