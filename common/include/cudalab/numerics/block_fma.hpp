// One tensor-core K-block, bit for bit as the H200 computes it:
//
//   d = a[0]*b[0] + a[1]*b[1] + ... + a[k-1]*b[k-1] + c      (a, b: fp16, bf16 or TF32; c, d: fp32)
//
// The tensor core does not round after each product or each addition. It
//   1. forms every product exactly (subnormal inputs kept);
//   2. aligns all products and c to the largest exponent among them;
//   3. keeps 25 fraction bits below that exponent in each aligned term,
//      truncating the rest (no sticky bit);
//   4. adds the aligned terms exactly;
//   5. normalises the sum once and rounds it toward zero to fp32.
// (Hopper's fp8 blocks do the same with 13 kept bits in step 3 and 14
// significant bits in step 5: fp8.hpp.)
// The exponent of a product in step 2 is the sum of its inputs' exponents
// (before the product's own normalisation): when the largest product is 2 or
// more, it therefore keeps one more bit below its leading bit.
// (Model: Fasi, Higham, Mikaitis, Pranesh, PeerJ CS 7:e330, 2021; Khattak and
// Mikaitis, arXiv:2512.07004. tests/numerics compares it with mma.sync on an
// H200; docs/numerics.md works through examples.)
//
// An mma.sync with a larger K chains blocks: the result of one block is the c
// of the next. mma_dot does that with the block size the hardware uses.
#pragma once

#include <cstdint>

#include "cudalab/numerics/bits.hpp"

namespace cudalab::numerics {

enum class MmaFormat { fp16, bf16, tf32 };

// How many products one block sums before rounding: measured on the H200 by
// tests/numerics (numerics_gpu_test.cu, "KBlock").
CUDALAB_HOST_DEVICE constexpr int mma_k_block(MmaFormat format) {
  return format == MmaFormat::tf32 ? 8 : 16;
}

// The same for Hopper's wgmma.mma_async (cudalab/wgmma.hpp; the emulator's
// common/emu/warpgroup_mma.cpp sums with it): the model's one parameter
// for that instruction, assumed equal to mma.sync's until
// tests/numerics' WgmmaNumericsGpu compares it bit for bit on an H100 (it
// also reports how the alternatives, one block of the instruction's K or
// two halves, would fare: change this if one of them matches).
CUDALAB_HOST_DEVICE constexpr int wgmma_k_block(MmaFormat format) { return mma_k_block(format); }

// The fraction bits each aligned term keeps below the alignment exponent.
inline constexpr int kept_fraction_bits = 25;

// The two widths of a block's fixed-point sum: the fraction bits each
// aligned term keeps below the alignment exponent (step 3) and the
// significant bits the normalised sum keeps (step 5). Hopper's fp8 blocks
// (fp8.hpp) keep fewer of both than fp16, bf16 and TF32 blocks.
struct BlockSumWidths {
  int kept_fraction_bits;
  int result_significant_bits;
};

// fp16, bf16 and TF32: 25 kept bits, the sum rounded to fp32's 24.
inline constexpr BlockSumWidths mma_block_sum_widths{kept_fraction_bits, 24};

namespace block_fma_detail {

struct FormatShape {
  int exponent_bits;
  int fraction_bits;
};

CUDALAB_HOST_DEVICE constexpr FormatShape shape_of(MmaFormat format) {
  switch (format) {
    case MmaFormat::fp16:
      return {5, 10};
    case MmaFormat::bf16:
      return {8, 7};
    case MmaFormat::tf32:
      return {8, 10};
  }
  return {8, 23};
}

// A finite number as significand * 2^(exponent - fraction_bits), with the
// exponent of a subnormal held at the format's smallest one (its significand
// then lacks the leading 1): the form the tensor core works with.
struct Unpacked {
  bool negative = false;
  bool is_nan = false;
  bool is_infinite = false;
  int exponent = 0;
  std::uint64_t significand = 0;  // 0 for zero
  int fraction_bits = 0;
};

CUDALAB_HOST_DEVICE inline Unpacked unpack(std::uint32_t bits, FormatShape shape) {
  const int width = 1 + shape.exponent_bits + shape.fraction_bits;
  const std::uint32_t exponent_max = (1u << shape.exponent_bits) - 1u;
  const int bias = static_cast<int>(exponent_max >> 1);
  const std::uint32_t exponent_field = (bits >> shape.fraction_bits) & exponent_max;
  const std::uint32_t fraction = bits & ((1u << shape.fraction_bits) - 1u);
  Unpacked u;
  u.negative = ((bits >> (width - 1)) & 1u) != 0;
  u.fraction_bits = shape.fraction_bits;
  if (exponent_field == exponent_max) {
    u.is_nan = fraction != 0;
    u.is_infinite = fraction == 0;
    return u;
  }
  const bool subnormal = exponent_field == 0;
  u.exponent = subnormal ? 1 - bias : static_cast<int>(exponent_field) - bias;
  u.significand = subnormal ? fraction : (fraction | (1u << shape.fraction_bits));
  return u;
}

// An operand's pattern in the format's own width. TF32 operands are fp32
// patterns: the tensor core reads their upper 19 bits, so the low 13 are
// dropped (rounded toward zero) here.
CUDALAB_HOST_DEVICE inline Unpacked unpack_operand(std::uint32_t bits, MmaFormat format) {
  if (format == MmaFormat::tf32) return unpack(bits >> 13, shape_of(format));
  return unpack(bits & 0xffffu, shape_of(format));
}

CUDALAB_HOST_DEVICE inline Unpacked unpack_fp32(float value) {
  return unpack(float_bits(value), FormatShape{8, 23});
}

// Step 1: the exact product. Its exponent is the sum of the exponents, not
// renormalised: a significand product in [2, 4) stays there.
CUDALAB_HOST_DEVICE inline Unpacked exact_product(const Unpacked& a, const Unpacked& b) {
  Unpacked p;
  p.negative = a.negative != b.negative;
  p.exponent = a.exponent + b.exponent;
  p.significand = a.significand * b.significand;
  p.fraction_bits = a.fraction_bits + b.fraction_bits;
  return p;
}

// Infinities and NaNs skip the arithmetic: NaN in, inf * 0 or inf - inf
// give the canonical NaN; otherwise an infinity wins with its sign.
struct SpecialCase {
  bool nan = false;
  bool plus_infinity = false;
  bool minus_infinity = false;
};

CUDALAB_HOST_DEVICE inline void note_operands(SpecialCase& s, const Unpacked& x,
                                              const Unpacked& y) {
  // Almost every pair is finite: one test decides that.
  if (!(x.is_nan || x.is_infinite || y.is_nan || y.is_infinite)) return;
  if (x.is_nan || y.is_nan) s.nan = true;
  const bool x_zero = !x.is_infinite && !x.is_nan && x.significand == 0;
  const bool y_zero = !y.is_infinite && !y.is_nan && y.significand == 0;
  if ((x.is_infinite && y_zero) || (y.is_infinite && x_zero)) s.nan = true;
  if (x.is_infinite || y.is_infinite) {
    (x.negative != y.negative ? s.minus_infinity : s.plus_infinity) = true;
  }
}

CUDALAB_HOST_DEVICE inline void note_accumulator(SpecialCase& s, const Unpacked& c) {
  if (c.is_nan) s.nan = true;
  if (c.is_infinite) (c.negative ? s.minus_infinity : s.plus_infinity) = true;
}

CUDALAB_HOST_DEVICE inline bool any_special(const SpecialCase& s) {
  return s.nan || s.plus_infinity || s.minus_infinity;
}

CUDALAB_HOST_DEVICE inline float special_result(const SpecialCase& s) {
  if (s.nan || (s.plus_infinity && s.minus_infinity)) return float_from_bits(fp32_canonical_nan);
  return float_from_bits(s.plus_infinity ? 0x7f800000u : 0xff800000u);
}

// Step 2: the alignment exponent, the largest exponent of a non-zero term.
struct AlignmentExponent {
  bool any_nonzero = false;
  int exponent = 0;
};

CUDALAB_HOST_DEVICE inline void include_in_alignment(AlignmentExponent& e, const Unpacked& term) {
  if (term.significand == 0) return;
  if (!e.any_nonzero || term.exponent > e.exponent) e.exponent = term.exponent;
  e.any_nonzero = true;
}

// Step 3: a term in units of 2^(alignment - kept fraction bits), its
// magnitude truncated (toward zero), then signed.
CUDALAB_HOST_DEVICE inline std::int64_t align_and_truncate(
    const Unpacked& term, int alignment, BlockSumWidths widths = mma_block_sum_widths) {
  const int shift = (term.exponent - term.fraction_bits) - (alignment - widths.kept_fraction_bits);
  std::uint64_t magnitude = 0;
  if (shift >= 0) {
    magnitude = term.significand << shift;  // < 2^28: the term is at most 4 * 2^alignment
  } else if (shift > -64) {
    magnitude = term.significand >> -shift;
  }
  const auto signed_magnitude = static_cast<std::int64_t>(magnitude);
  return term.negative ? -signed_magnitude : signed_magnitude;
}

CUDALAB_HOST_DEVICE inline int highest_set_bit(std::uint64_t value) {
  if (value == 0) return -1;
#if defined(__CUDA_ARCH__)
  return 63 - __clzll(static_cast<long long>(value));
#else
  return 63 - __builtin_clzll(value);
#endif
}

// Step 5: sum * 2^(alignment - kept fraction bits), normalised once and
// rounded toward zero to the widths' significant bits (at most 24), then
// to fp32 (subnormal below 2^-126, infinity above the largest fp32). An
// exact zero is +0.
CUDALAB_HOST_DEVICE inline float normalise_toward_zero(
    std::int64_t sum, int alignment, BlockSumWidths widths = mma_block_sum_widths) {
  if (sum == 0) return 0.0f;
  const std::uint32_t sign = sum < 0 ? 0x80000000u : 0u;
  std::uint64_t magnitude = static_cast<std::uint64_t>(sum < 0 ? -sum : sum);
  const int unit_exponent = alignment - widths.kept_fraction_bits;  // the value of bit 0
  const int leading = highest_set_bit(magnitude);
  // A sum narrower than fp32 loses its low bits first; for 24 this is the
  // truncation below, done twice.
  const int dropped = leading + 1 - widths.result_significant_bits;
  if (dropped > 0) magnitude = (magnitude >> dropped) << dropped;
  const int exponent = leading + unit_exponent;
  if (exponent > 127) return float_from_bits(sign | 0x7f800000u);
  std::uint64_t fraction_bits;  // the result's significand field(s), truncated
  std::uint32_t exponent_field;
  if (exponent >= -126) {
    const int shift = leading - 23;  // keep 24 significant bits
    const std::uint64_t significand = shift >= 0 ? magnitude >> shift : magnitude << -shift;
    fraction_bits = significand & 0x7fffffu;
    exponent_field = static_cast<std::uint32_t>(exponent + 127);
  } else {
    const int shift = unit_exponent + 149;  // subnormal: count units of 2^-149
    fraction_bits = shift >= 0 ? magnitude << shift : (-shift < 64 ? magnitude >> -shift : 0);
    exponent_field = 0;
  }
  return float_from_bits(sign | (exponent_field << 23) | static_cast<std::uint32_t>(fraction_bits));
}

// The products one block sums: a longer block is cut there (the specials of
// the operands past the cut still count).
inline constexpr int max_block_products = 64;

// One block from operands already unpacked by unpack_operand (k at most
// max_block_products): the arithmetic of mma_block_fma, for callers that use
// each operand in many blocks, as the emulator's mma.sync does, and for
// fp8.hpp's blocks with their narrower widths. Two passes
// over the products (the alignment exponent, then the sum) instead of an
// array of them: a product is three integer operations.
CUDALAB_HOST_DEVICE inline float block_fma_unpacked(const Unpacked* a, const Unpacked* b, int k,
                                                    float c,
                                                    BlockSumWidths widths = mma_block_sum_widths) {
  SpecialCase special;
  AlignmentExponent alignment;
  for (int i = 0; i < k; ++i) {
    note_operands(special, a[i], b[i]);
    include_in_alignment(alignment, exact_product(a[i], b[i]));  // specials: unused then
  }
  const Unpacked accumulator = unpack_fp32(c);
  note_accumulator(special, accumulator);
  if (any_special(special)) return special_result(special);
  include_in_alignment(alignment, accumulator);
  if (!alignment.any_nonzero) return 0.0f;

  std::int64_t sum = align_and_truncate(accumulator, alignment.exponent, widths);
  for (int i = 0; i < k; ++i) {
    sum += align_and_truncate(exact_product(a[i], b[i]), alignment.exponent, widths);
  }
  return normalise_toward_zero(sum, alignment.exponent, widths);
}

}  // namespace block_fma_detail

// d = sum over i < k of a[i]*b[i], plus c, as one tensor-core block (k up
// to 16 for fp16/bf16 and 8 for TF32 in hardware; any k the model allows).
// a and b hold bit patterns of `format`: fp16 and bf16 in the low 16 bits,
// TF32 as fp32 patterns whose low 13 bits are ignored.
CUDALAB_HOST_DEVICE inline float mma_block_fma(const std::uint32_t* a, const std::uint32_t* b,
                                               int k, float c, MmaFormat format) {
  using namespace block_fma_detail;
  Unpacked x[max_block_products], y[max_block_products];
  SpecialCase past_the_cut;
  for (int i = 0; i < k; ++i) {
    const Unpacked xi = unpack_operand(a[i], format), yi = unpack_operand(b[i], format);
    if (i < max_block_products) {
      x[i] = xi;
      y[i] = yi;
    } else {
      note_operands(past_the_cut, xi, yi);
    }
  }
  const int kept = k < max_block_products ? k : max_block_products;
  if (!any_special(past_the_cut)) return block_fma_unpacked(x, y, kept, c);
  for (int i = 0; i < kept; ++i) note_operands(past_the_cut, x[i], y[i]);
  note_accumulator(past_the_cut, unpack_fp32(c));
  return special_result(past_the_cut);
}

// A whole mma.sync dot product of length k: blocks of mma_k_block(format)
// products, each block's result the next block's c.
CUDALAB_HOST_DEVICE inline float mma_dot(const std::uint32_t* a, const std::uint32_t* b, int k,
                                         float c, MmaFormat format, int k_block) {
  for (int start = 0; start < k; start += k_block) {
    const int length = k - start < k_block ? k - start : k_block;
    c = mma_block_fma(a + start, b + start, length, c, format);
  }
  return c;
}

CUDALAB_HOST_DEVICE inline float mma_dot(const std::uint32_t* a, const std::uint32_t* b, int k,
                                         float c, MmaFormat format) {
  return mma_dot(a, b, k, c, format, mma_k_block(format));
}

}  // namespace cudalab::numerics
