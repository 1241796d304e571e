// The two 8-bit floating-point formats of Hopper's tensor cores (PTX .e4m3
// and .e5m2, the OCP FP8 formats) and the tensor core's K-block over them:
//
//   e4m3  s eeee ffff... s eeee fff   4 exponent bits (bias 7), 3 fraction bits;
//         no infinities: S.1111.111 is NaN, so S.1111.110 = 448 is the largest
//   e5m2  s eeeee ff                  5 exponent bits (bias 15), 2 fraction bits;
//         IEEE-like: S.11111.00 infinite, S.11111.xx (xx != 0) NaN, 57344 the largest
//
// Both have subnormals (exponent field 0). fp8_block_fma sums one K-block of
// products with the steps of block_fma.hpp (exact products, one alignment,
// 25 kept fraction bits, one rounding toward zero); a and b may be of
// different formats (wgmma's .e4m3.e5m2). Whether Hopper sums fp8 blocks
// that way, and over how many products, is what tests/numerics'
// WgmmaFp8NumericsGpu measures bit for bit on an H100: the model's
// parameter is wgmma_fp8_k_block.
#pragma once

#include <cstdint>

#include "cudalab/numerics/bits.hpp"
#include "cudalab/numerics/block_fma.hpp"

namespace cudalab::numerics {

enum class Fp8Format { e4m3, e5m2 };

CUDALAB_HOST_DEVICE constexpr const char* fp8_format_name(Fp8Format format) {
  return format == Fp8Format::e4m3 ? "e4m3" : "e5m2";
}

// How many products one block of wgmma's .e4m3/.e5m2 sums before rounding:
// the instruction's K (32), assumed until the GPU test says otherwise.
inline constexpr int wgmma_fp8_k_block = 32;

namespace fp8_detail {

// The pattern as block_fma.hpp's unpacked form (exponent of a subnormal at
// the format's smallest, 3 or 2 fraction bits).
CUDALAB_HOST_DEVICE inline block_fma_detail::Unpacked unpack(std::uint8_t bits, Fp8Format format) {
  if (format == Fp8Format::e5m2) return block_fma_detail::unpack(bits, {5, 2});
  block_fma_detail::Unpacked u;
  u.negative = (bits & 0x80u) != 0;
  u.fraction_bits = 3;
  if ((bits & 0x7fu) == 0x7fu) {  // the only NaN; exponent field 15 is otherwise finite
    u.is_nan = true;
    return u;
  }
  const unsigned exponent_field = (bits >> 3) & 0xfu;
  const unsigned fraction = bits & 0x7u;
  u.exponent = exponent_field == 0 ? 1 - 7 : static_cast<int>(exponent_field) - 7;
  u.significand = exponent_field == 0 ? fraction : (fraction | 0x8u);
  return u;
}

}  // namespace fp8_detail

// fp8 -> fp32 is exact; a NaN becomes the canonical fp32 NaN.
CUDALAB_HOST_DEVICE inline float fp8_bits_to_fp32(std::uint8_t bits, Fp8Format format) {
  const block_fma_detail::Unpacked u = fp8_detail::unpack(bits, format);
  if (u.is_nan) return float_from_bits(fp32_canonical_nan);
  const std::uint32_t sign = u.negative ? 0x80000000u : 0u;
  if (u.is_infinite) return float_from_bits(sign | 0x7f800000u);
  if (u.significand == 0) return float_from_bits(sign);
  // significand * 2^(exponent - fraction_bits): at most 4 bits, well inside fp32.
  float value = static_cast<float>(u.significand);
  for (int e = u.exponent - u.fraction_bits; e > 0; --e) value *= 2.0f;
  for (int e = u.exponent - u.fraction_bits; e < 0; ++e) value *= 0.5f;
  return u.negative ? -value : value;
}

// d = sum over i < k of a[i]*b[i], plus c, as one tensor-core block (k at
// most block_fma_detail::max_block_products); a in format_a, b in format_b.
CUDALAB_HOST_DEVICE inline float fp8_block_fma(const std::uint8_t* a, const std::uint8_t* b, int k,
                                               float c, Fp8Format format_a, Fp8Format format_b) {
  using namespace block_fma_detail;
  Unpacked x[max_block_products], y[max_block_products];
  const int kept = k < max_block_products ? k : max_block_products;
  for (int i = 0; i < kept; ++i) {
    x[i] = fp8_detail::unpack(a[i], format_a);
    y[i] = fp8_detail::unpack(b[i], format_b);
  }
  return block_fma_unpacked(x, y, kept, c);
}

// A dot product of length k in blocks of k_block, each block's result the
// next block's c.
CUDALAB_HOST_DEVICE inline float fp8_dot(const std::uint8_t* a, const std::uint8_t* b, int k,
                                         float c, Fp8Format format_a, Fp8Format format_b,
                                         int k_block = wgmma_fp8_k_block) {
  for (int start = 0; start < k; start += k_block) {
    const int length = k - start < k_block ? k - start : k_block;
    c = fp8_block_fma(a + start, b + start, length, c, format_a, format_b);
  }
  return c;
}

}  // namespace cudalab::numerics
