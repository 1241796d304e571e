// A whole m16n8 tile of one mma.sync on the host, with the same bits as
// mma_dot for every element (block_fma.hpp), but fast: what the emulator's
// mma.sync and wmma::mma_sync compute per instruction (common/emu/warp_mma.cpp).
//
//   mma_tile_m16n8(format, k, k_block, a, b, c, d)
//     k  8 or 16 (the instructions' K); k_block from 1 to k (the fast form:
//        16 in blocks of 16 or 8, 8 in blocks of 8 or 4)
//     a  16 x k operand patterns, row-major (a[i * k + kk]); fp16/bf16 in the
//        low 16 bits, TF32 as fp32 patterns (their low 13 bits ignored)
//     b  k x 8 operand patterns, row-major (b[kk * 8 + j])
//     c, d  16 x 8 floats, row-major; d may be c
//   d[i][j] == mma_dot(row i of a, column j of b, k, c[i][j], format, k_block)
//
// How, without changing a bit: every operand of fp16, and of bf16 and TF32
// whose exponent lies in [-50, 50], is an fp32 value exactly, and so is a
// product of two of them (at most 22 significant bits, exponent within fp32's
// range). One block's terms in units of 2^(E - 25) (E: the alignment
// exponent of block_fma.hpp, the largest unnormalised product exponent or c's)
// are then the product times a power of two, exact in fp32 as well, and the
// model's truncation of each term toward zero is the truncating conversion to
// an integer (every term is below 2^27, the 16 of a block sum below 2^31). c's
// term is truncated the same way. The exact sum, normalised once and rounded
// toward zero, is the integer converted to fp32 (rounding to nearest), stepped
// back toward zero where that rounded up, times 2^(E - 25): for such operands
// the result is never subnormal and never above 2^128 but from c. That is
// four columns at once in 16-byte vectors (GCC's vector extensions: SSE2 on
// any x86-64, NEON on aarch64) and no branch per product. Anything else (an infinite or NaN
// operand or c, bf16/TF32 exponents outside [-50, 50], subnormals of those
// two, a sum too close to 2^31) takes mma_dot itself, for the rows it
// concerns. tests/numerics compares the two on millions of elements.
//
// Host only (the emulator and tests): not included by cudalab/numerics.hpp.
#pragma once

#include <cstdint>

#include "cudalab/numerics/block_fma.hpp"

namespace cudalab::numerics {

namespace mma_tile_detail {

// Four lanes: 16 bytes, a vector every target has (SSE2, NEON), so that GCC
// keeps every operation below, selects included, in vector instructions.
using f4 = float __attribute__((vector_size(16)));
using i4 = std::int32_t __attribute__((vector_size(16)));
using u4 = std::uint32_t __attribute__((vector_size(16)));

// The exponent given to a zero operand: a product with it is below every real
// product (-100 at least) and never sets E.
inline constexpr float zero_exponent = -1000.0f;
// A column whose largest product exponent is below this has no non-zero product.
inline constexpr float no_product = -500.0f;
// Operand exponents the fp32 form handles (see above).
inline constexpr int lowest_exponent = -50;
inline constexpr int highest_exponent = 50;

inline f4 f4_of(float x) { return f4{x, x, x, x}; }
inline i4 i4_of(std::int32_t x) { return i4{x, x, x, x}; }
inline i4 bits_of(f4 v) { return __builtin_bit_cast(i4, v); }
inline f4 float_of(i4 v) { return __builtin_bit_cast(f4, v); }
inline bool any_of(i4 mask) { return (mask[0] | mask[1] | mask[2] | mask[3]) != 0; }

// Four operand patterns of `format` into their exact values as fp32 and
// their unnormalised exponents (zero_exponent for a zero); false unless all
// four are finite with exponents the fp32 form handles.
template <MmaFormat format>
[[gnu::always_inline]] inline bool decode4(const std::uint32_t* bits, f4& value, f4& exponent) {
  i4 x;
  __builtin_memcpy(&x, bits, sizeof x);
  if constexpr (format == MmaFormat::fp16) {
    const i4 h = x & 0xffff;
    const i4 field = (h >> 10) & 0x1f;
    const i4 fraction = h & 0x3ff;
    const i4 sign = (h & 0x8000) << 16;
    // Normal: rebias 15 -> 127 and widen the fraction. Subnormal: fraction *
    // 2^-24 (an integer conversion, exact; no fp32 subnormal involved).
    const i4 normal = sign | ((field + 112) << 23) | (fraction << 13);
    const i4 subnormal = sign | bits_of(__builtin_convertvector(fraction, f4) * f4_of(0x1p-24f));
    value = float_of(field == 0 ? subnormal : normal);
    const i4 unbiased = (field > 1 ? field : i4_of(1)) - 15;  // subnormals: -14
    exponent = (h & 0x7fff) == 0 ? f4_of(zero_exponent) : __builtin_convertvector(unbiased, f4);
    return !any_of(field == 0x1f);
  }
  // bf16 is the upper half of an fp32 pattern; a TF32 operand an fp32
  // pattern of which the tensor core reads the upper 19 bits.
  const i4 pattern = format == MmaFormat::bf16 ? x << 16 : (x & ~0x1fff);
  const i4 unbiased = ((pattern >> 23) & 0xff) - 127;
  const i4 zero = (pattern & 0x7fffffff) == 0;
  value = float_of(pattern);
  exponent = zero ? f4_of(zero_exponent) : __builtin_convertvector(unbiased, f4);
  // Subnormals (-127 here), infinities and NaNs (128) are outside too.
  return !any_of(~zero & ((unbiased < lowest_exponent) | (unbiased > highest_exponent)));
}

// The operands of one instruction, decoded: A by row, B by k and half (four
// columns each).
struct Operands {
  float a_value[16][16];
  float a_exponent[16][16];
  f4 b_value[16][2];
  f4 b_exponent[16][2];
};

// Row i of the tile through the fp32 form, K products in blocks of KB; false
// where that does not apply (c, or a block's result, infinite or NaN, or a
// sum of 2^30 or more), leaving d unset. Both halves of the row (columns 0-3
// and 4-7) go together, so that each A element is spread once.
template <int K, int KB>
[[gnu::always_inline]] inline bool row_in_fp32(const Operands& op, int i, const float* c_row,
                                               float* d_row) {
  f4 c[2];
  __builtin_memcpy(&c, c_row, sizeof c);
  for (int start = 0; start < K; start += KB) {
    i4 c_field[2], c_zero[2];
    f4 products[2] = {f4_of(2 * zero_exponent), f4_of(2 * zero_exponent)};
    for (int h = 0; h < 2; ++h) {
      c_field[h] = (bits_of(c[h]) >> 23) & 0xff;
      c_zero[h] = (bits_of(c[h]) & 0x7fffffff) == 0;
    }
    if (any_of((c_field[0] == 0xff) | (c_field[1] == 0xff))) return false;
      // Step 2: E, the largest exponent among the non-zero terms.
#pragma GCC unroll 16
    for (int kk = start; kk < start + KB; ++kk) {
      const f4 a = f4_of(op.a_exponent[i][kk]);
      for (int h = 0; h < 2; ++h) {
        const f4 e = a + op.b_exponent[kk][h];
        products[h] = e > products[h] ? e : products[h];
      }
    }
    i4 none[2], products_sum[2] = {i4_of(0), i4_of(0)};
    f4 to_units[2], from_units[2];
    for (int h = 0; h < 2; ++h) {
      none[h] = products[h] < no_product;  // no non-zero product: the block is c
      const f4 c_exponent =
          c_zero[h] ? f4_of(2 * zero_exponent)
                    : __builtin_convertvector((c_field[h] > 1 ? c_field[h] : i4_of(1)) - 127, f4);
      const f4 alignment =
          none[h] ? f4_of(0.0f) : (c_exponent > products[h] ? c_exponent : products[h]);
      const i4 exponent = __builtin_convertvector(alignment, i4);  // in [-100, 127]
      to_units[h] = float_of((152 - exponent) << 23);              // 2^(25 - E)
      from_units[h] = float_of((exponent + 102) << 23);            // 2^(E - 25)
    }
    // Steps 3 and 4: each term truncated toward zero in units of 2^(E - 25),
    // summed (16 products below 2^27 each: no overflow).
#pragma GCC unroll 16
    for (int kk = start; kk < start + KB; ++kk) {
      const f4 a = f4_of(op.a_value[i][kk]);
      for (int h = 0; h < 2; ++h) {
        const f4 product = a * op.b_value[kk][h];  // exact
        products_sum[h] += __builtin_convertvector(product * to_units[h], i4);
      }
    }
    i4 problems = i4_of(0);
    i4 sum[2];
    for (int h = 0; h < 2; ++h) {
      const i4 c_term = __builtin_convertvector((none[h] ? f4_of(0.0f) : c[h]) * to_units[h], i4);
      sum[h] = __builtin_bit_cast(
          i4, __builtin_bit_cast(u4, products_sum[h]) + __builtin_bit_cast(u4, c_term));
      // The conversions below need |sum| < 2^30; the rest goes the exact way.
      problems |= ((products_sum[h] ^ sum[h]) & (c_term ^ sum[h])) >> 31;  // wrapped
      problems |= (sum[h] >= (1 << 30)) | (sum[h] <= -(1 << 30));
    }
    if (any_of(problems)) return false;
    for (int h = 0; h < 2; ++h) {
      // Step 5: to fp32 toward zero (the nearest, one step back where it
      // rounded away from zero), then scaled by 2^(E - 25): exact, and normal.
      const f4 nearest = __builtin_convertvector(sum[h], f4);
      const i4 back = __builtin_convertvector(nearest, i4);
      const i4 rounded_away = sum[h] < 0 ? back < sum[h] : back > sum[h];  // -1 where it did
      const f4 result = float_of(bits_of(nearest) + rounded_away) * from_units[h];
      c[h] = none[h] ? (c_zero[h] ? f4_of(0.0f) : c[h]) : result;
    }
  }
  __builtin_memcpy(d_row, &c, sizeof c);
  return true;
}

// The whole tile in the fp32 form where it applies (all of B, and a row's A
// and c); returns how many rows did (the others are left to mma_dot).
template <MmaFormat format, int K, int KB>
int tile_in_fp32(const std::uint32_t* a, const std::uint32_t* b, const float* c, float* d,
                 bool* row_done) {
  Operands op;
  bool b_fits = true;
#pragma GCC unroll 4
  for (int kk = 0; kk < K; ++kk) {
    b_fits = decode4<format>(b + kk * 8, op.b_value[kk][0], op.b_exponent[kk][0]) && b_fits;
    b_fits = decode4<format>(b + kk * 8 + 4, op.b_value[kk][1], op.b_exponent[kk][1]) && b_fits;
  }
  if (!b_fits) return 0;
  bool a_fits[16];
#pragma GCC unroll 4
  for (int i = 0; i < 16; ++i) {
    a_fits[i] = true;
#pragma GCC unroll 4
    for (int v = 0; v < K; v += 4) {
      f4 value, exponent;
      a_fits[i] = decode4<format>(a + i * K + v, value, exponent) && a_fits[i];
      __builtin_memcpy(&op.a_value[i][v], &value, sizeof value);
      __builtin_memcpy(&op.a_exponent[i][v], &exponent, sizeof exponent);
    }
  }
  int done = 0;
  for (int i = 0; i < 16; ++i) {
    float row[8];  // d may be c: written once the row is done
    row_done[i] = a_fits[i] && row_in_fp32<K, KB>(op, i, c + i * 8, row);
    if (row_done[i]) {
      __builtin_memcpy(d + i * 8, row, sizeof row);
      ++done;
    }
  }
  return done;
}

// The instructions' shapes: m16n8k16 (one block of 16), m16n8k8 TF32 (one
// block of 8) and wmma's m16n16k8 TF32 (two blocks of 4); 16 in blocks of 8
// for the tests. -1: none of these.
template <MmaFormat format>
int tile_in_fp32(int k, int k_block, const std::uint32_t* a, const std::uint32_t* b, const float* c,
                 float* d, bool* row_done) {
  if (k == 16 && k_block == 16) return tile_in_fp32<format, 16, 16>(a, b, c, d, row_done);
  if (k == 16 && k_block == 8) return tile_in_fp32<format, 16, 8>(a, b, c, d, row_done);
  if (k == 8 && k_block == 8) return tile_in_fp32<format, 8, 8>(a, b, c, d, row_done);
  if (k == 8 && k_block == 4) return tile_in_fp32<format, 8, 4>(a, b, c, d, row_done);
  return -1;
}

}  // namespace mma_tile_detail

// The result: how many of the 16 rows took the fp32 form (the tests ask).
inline int mma_tile_m16n8(MmaFormat format, int k, int k_block, const std::uint32_t* a,
                          const std::uint32_t* b, const float* c, float* d) {
  using namespace mma_tile_detail;
  bool row_done[16] = {};
  int done = -1;
  switch (format) {
    case MmaFormat::fp16:
      done = tile_in_fp32<MmaFormat::fp16>(k, k_block, a, b, c, d, row_done);
      break;
    case MmaFormat::bf16:
      done = tile_in_fp32<MmaFormat::bf16>(k, k_block, a, b, c, d, row_done);
      break;
    case MmaFormat::tf32:
      done = tile_in_fp32<MmaFormat::tf32>(k, k_block, a, b, c, d, row_done);
      break;
  }
  if (done == 16) return done;
  // The rest: mma_dot itself. Rows done are not read again (d may be c).
  for (int i = 0; i < 16; ++i) {
    if (row_done[i]) continue;
    std::uint32_t column[16];
    for (int j = 0; j < 8; ++j) {
      for (int kk = 0; kk < k; ++kk) column[kk] = b[kk * 8 + j];
      d[i * 8 + j] = mma_dot(a + i * k, column, k, c[i * 8 + j], format, k_block);
    }
  }
  return done < 0 ? 0 : done;
}

}  // namespace cudalab::numerics
