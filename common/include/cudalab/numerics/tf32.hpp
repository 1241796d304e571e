// fp32 -> TF32. TF32 keeps fp32's sign and 8 exponent bits and 10 of its 23
// fraction bits; cudalab holds it as an fp32 bit pattern whose low 13 bits
// are zero. Three roundings meet in practice:
//
//   toward zero     what a TF32 mma.sync does to raw fp32 operands (it ignores the low 13 bits)
//   ties away       cvt.rna.tf32.f32, what wmma::__float_to_tf32 compiles to
//   nearest even    what cuBLAS does to its fp32 inputs in TF32 mode
//
// 0x3f801000 (1 + 2^-11, halfway between two TF32 values) rounds to
// 0x3f800000 toward zero and to nearest even, to 0x3f802000 ties away;
// 0x3f801800 rounds to 0x3f802000 in all three but toward zero.
#pragma once

#include <cstdint>

#include "cudalab/numerics/bits.hpp"

namespace cudalab::numerics {

inline constexpr std::uint32_t tf32_dropped_bits_mask = 0x1fffu;  // the low 13 bits
// The NaN that cvt.rz and cvt.rn return for every NaN input (H200).
inline constexpr std::uint32_t tf32_canonical_nan = 0x7fffe000u;

enum class Tf32Rounding { toward_zero, ties_away, nearest_even };

CUDALAB_HOST_DEVICE inline float fp32_to_tf32(float value, Tf32Rounding rounding) {
  const std::uint32_t bits = float_bits(value);
  const std::uint32_t sign = bits & 0x80000000u;
  const std::uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) {
    // Measured on the H200: cvt.rna truncates a NaN (sign kept), so a NaN
    // whose payload lies in the low 13 bits becomes an infinity; cvt.rz and
    // cvt.rn return one canonical NaN.
    return float_from_bits(rounding == Tf32Rounding::ties_away ? bits & ~tf32_dropped_bits_mask
                                                               : tf32_canonical_nan);
  }
  std::uint32_t rounded = magnitude;  // a carry out of the fraction moves up a binade (or to inf)
  switch (rounding) {
    case Tf32Rounding::toward_zero:
      break;
    case Tf32Rounding::ties_away:
      rounded = magnitude + 0x1000u;  // add half a TF32 step, then truncate
      break;
    case Tf32Rounding::nearest_even:
      rounded = drop_bits_nearest_even(magnitude, 13) << 13;
      break;
  }
  return float_from_bits(sign | (rounded & ~tf32_dropped_bits_mask));
}

}  // namespace cudalab::numerics
