// The two 8-bit floating-point formats of Hopper's tensor cores (PTX .e4m3
// and .e5m2, the OCP FP8 formats) and the tensor core's K-block over them:
//
//   e4m3  s eeee fff                  4 exponent bits (bias 7), 3 fraction bits;
//         no infinities: S.1111.111 is NaN, so S.1111.110 = 448 is the largest
//   e5m2  s eeeee ff                  5 exponent bits (bias 15), 2 fraction bits;
//         IEEE-like: S.11111.00 infinite, S.11111.xx (xx != 0) NaN, 57344 the largest
//
// Both have subnormals (exponent field 0). fp8_block_fma sums one K-block of
// 32 products with the steps of block_fma.hpp but narrower widths:
//   1. every product exact, its exponent the sum of its inputs' exponents;
//   2. all products and c aligned to the largest exponent among them;
//   3. 13 fraction bits kept below that exponent in each term (c included),
//      the rest truncated (toward zero);
//   4. the terms added exactly;
//   5. the sum normalised and truncated to 14 significant bits (13 fraction
//      bits), which fp32 holds exactly.
// a and b may be of different formats (wgmma's .e4m3.e5m2). The widths were
// fitted to an H100's results (NVIDIA H100 80GB HBM3, CUDA 13.0,
// 2026-12-07): of the 64 K-blocks where the previous model (25 kept bits,
// fp32's 24) differed from the GPU, 16 of each pairing, this one reproduces
// all 64 bit for bit, and so do two variants that leave c out of step 2's
// alignment (c exact, or first truncated to 14 bits); the three can part only
// when c's exponent is above every product's. On the next H100 run (same
// day) it held on all 163,840 blocks of each pairing, specials and large
// accumulators included (tests/numerics' WgmmaFp8NumericsGpu, whose
// accumulators reach far above every product, where the variants part).
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
// the instruction's K (32); halves of 16 chained fit 43 of the 64 recorded
// differences, one block of 32 all of them.
inline constexpr int wgmma_fp8_k_block = 32;

// The widths of the fp8 block sum (steps 3 and 5 above): the fp8 path keeps
// fewer bits than fp16's (25 and 24), near the "around 14 bits" the
// DeepSeek-V3 technical report measured for FP8 accumulation on the H800.
inline constexpr BlockSumWidths wgmma_fp8_block_sum_widths{13, 14};

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
  return block_fma_unpacked(x, y, kept, c, wgmma_fp8_block_sum_widths);
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
