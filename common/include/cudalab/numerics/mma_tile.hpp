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

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"  // 32-byte vectors: only ever inlined into tile_in_8_lanes
#endif

// W lanes of 4 bytes. W = 4 (16 bytes) is a vector every target has (SSE2,
// NEON); W = 8 (32 bytes) is compiled only inside a function built for
// AVX2 (tile_avx2 below): without AVX, GCC would split the selects of a
// 32-byte vector into scalars. Everything here is inlined into one of the two.
template <int W>
struct Lanes;
template <>
struct Lanes<4> {
  using f = float __attribute__((vector_size(16)));
  using i = std::int32_t __attribute__((vector_size(16)));
  using u = std::uint32_t __attribute__((vector_size(16)));
};
template <>
struct Lanes<8> {
  using f = float __attribute__((vector_size(32)));
  using i = std::int32_t __attribute__((vector_size(32)));
  using u = std::uint32_t __attribute__((vector_size(32)));
};

#define CUDALAB_TILE_INLINE [[gnu::always_inline]] inline

// The exponent given to a zero operand: a product with it is below every real
// product (-100 at least) and never sets E.
inline constexpr float zero_exponent = -1000.0f;
// A column whose largest product exponent is below this has no non-zero product.
inline constexpr float no_product = -500.0f;
// Operand exponents the fp32 form handles (see above).
inline constexpr int lowest_exponent = -50;
inline constexpr int highest_exponent = 50;

// Vectors move between these functions by reference only: passed or
// returned by value, a 32-byte vector would make GCC warn that its ABI
// differs without AVX (-Wpsabi), although all of it is inlined.
// Whether any lane of a comparison's mask is set: halves folded together.
CUDALAB_TILE_INLINE bool any_of(const Lanes<4>::i& mask) {
  const Lanes<4>::i two = mask | __builtin_shufflevector(mask, mask, 2, 3, 0, 1);
  return (two[0] | two[1]) != 0;
}
CUDALAB_TILE_INLINE bool any_of(const Lanes<8>::i& mask) {
  const Lanes<4>::i four = __builtin_shufflevector(mask, mask, 0, 1, 2, 3) |
                           __builtin_shufflevector(mask, mask, 4, 5, 6, 7);
  return any_of(four);
}

// W operand patterns of `format` into their exact values as fp32 and their
// unnormalised exponents (zero_exponent for a zero); false unless all are
// finite with exponents the fp32 form handles.
template <MmaFormat format, int W>
CUDALAB_TILE_INLINE bool decode(const std::uint32_t* bits, typename Lanes<W>::f& value,
                                typename Lanes<W>::f& exponent) {
  using f = typename Lanes<W>::f;
  using i = typename Lanes<W>::i;
  i x;
  __builtin_memcpy(&x, bits, sizeof x);
  if constexpr (format == MmaFormat::fp16) {
    const i h = x & 0xffff;
    const i field = (h >> 10) & 0x1f;
    const i fraction = h & 0x3ff;
    const i sign = (h & 0x8000) << 16;
    // Normal: rebias 15 -> 127 and widen the fraction. Subnormal: fraction *
    // 2^-24 (an integer conversion, exact; no fp32 subnormal involved).
    const i normal = sign | ((field + 112) << 23) | (fraction << 13);
    const i subnormal =
        sign | __builtin_bit_cast(i, __builtin_convertvector(fraction, f) * 0x1p-24f);
    value = __builtin_bit_cast(f, field == 0 ? subnormal : normal);
    const i unbiased = (field > 1 ? field : i{} + 1) - 15;  // subnormals: -14
    exponent = (h & 0x7fff) == 0 ? f{} + zero_exponent : __builtin_convertvector(unbiased, f);
    return !any_of(field == 0x1f);
  } else {
    // bf16 is the upper half of an fp32 pattern; a TF32 operand an fp32
    // pattern of which the tensor core reads the upper 19 bits.
    const i pattern = format == MmaFormat::bf16 ? x << 16 : (x & ~0x1fff);
    const i unbiased = ((pattern >> 23) & 0xff) - 127;
    const i zero = (pattern & 0x7fffffff) == 0;
    value = __builtin_bit_cast(f, pattern);
    exponent = zero ? f{} + zero_exponent : __builtin_convertvector(unbiased, f);
    // Subnormals (-127 here), infinities and NaNs (128) are outside too.
    return !any_of(~zero & ((unbiased < lowest_exponent) | (unbiased > highest_exponent)));
  }
}

// The operands of one instruction, decoded: A by row and k; B by k and
// group of W columns.
template <int W>
struct Operands {
  static constexpr int groups = 8 / W;
  float a_value[16][16];
  float a_exponent[16][16];
  typename Lanes<W>::f b_value[16][groups];
  typename Lanes<W>::f b_exponent[16][groups];
};

// Row i of the tile through the fp32 form, K products in blocks of KB; false
// where that does not apply (c, or a block's result, infinite or NaN, or a
// sum of 2^30 or more), leaving d unset. The groups of columns go together,
// so that each A element is spread once.
template <int K, int KB, int W>
CUDALAB_TILE_INLINE bool row_in_fp32(const Operands<W>& op, int i, const float* c_row,
                                     float* d_row) {
  using f = typename Lanes<W>::f;
  using iv = typename Lanes<W>::i;
  using u = typename Lanes<W>::u;
  constexpr int G = Operands<W>::groups;
  f c[G];
  __builtin_memcpy(&c, c_row, sizeof c);
  for (int start = 0; start < K; start += KB) {
    iv c_field[G], c_zero[G];
    f products[G];
    iv special = iv{};
    for (int g = 0; g < G; ++g) {
      c_field[g] = (__builtin_bit_cast(iv, c[g]) >> 23) & 0xff;
      c_zero[g] = (__builtin_bit_cast(iv, c[g]) & 0x7fffffff) == 0;
      special |= c_field[g] == 0xff;
      products[g] = f{} + 2 * zero_exponent;
    }
    if (any_of(special)) return false;
      // Step 2: E, the largest exponent among the non-zero terms.
#pragma GCC unroll 16
    for (int kk = start; kk < start + KB; ++kk) {
      const f a = f{} + op.a_exponent[i][kk];
      for (int g = 0; g < G; ++g) {
        const f e = a + op.b_exponent[kk][g];
        products[g] = e > products[g] ? e : products[g];
      }
    }
    iv none[G], products_sum[G];
    f to_units[G], from_units[G];
    for (int g = 0; g < G; ++g) {
      none[g] = products[g] < no_product;  // no non-zero product: the block is c
      const f c_exponent =
          c_zero[g] ? f{} + 2 * zero_exponent
                    : __builtin_convertvector((c_field[g] > 1 ? c_field[g] : iv{} + 1) - 127, f);
      const f alignment = none[g] ? f{} : (c_exponent > products[g] ? c_exponent : products[g]);
      const iv exponent = __builtin_convertvector(alignment, iv);     // in [-100, 127]
      to_units[g] = __builtin_bit_cast(f, (152 - exponent) << 23);    // 2^(25 - E)
      from_units[g] = __builtin_bit_cast(f, (exponent + 102) << 23);  // 2^(E - 25)
      products_sum[g] = iv{};
    }
    // Steps 3 and 4: each term truncated toward zero in units of 2^(E - 25),
    // summed (16 products below 2^27 each: no overflow).
#pragma GCC unroll 16
    for (int kk = start; kk < start + KB; ++kk) {
      const f a = f{} + op.a_value[i][kk];
      for (int g = 0; g < G; ++g) {
        const f product = a * op.b_value[kk][g];  // exact
        products_sum[g] += __builtin_convertvector(product * to_units[g], iv);
      }
    }
    iv problems = iv{};
    iv sum[G];
    for (int g = 0; g < G; ++g) {
      const iv c_term = __builtin_convertvector((none[g] ? f{} : c[g]) * to_units[g], iv);
      sum[g] = __builtin_bit_cast(
          iv, __builtin_bit_cast(u, products_sum[g]) + __builtin_bit_cast(u, c_term));
      // The conversions below need |sum| < 2^30; the rest goes the exact way.
      problems |= ((products_sum[g] ^ sum[g]) & (c_term ^ sum[g])) >> 31;  // wrapped
      problems |= (sum[g] >= (1 << 30)) | (sum[g] <= -(1 << 30));
    }
    if (any_of(problems)) return false;
    for (int g = 0; g < G; ++g) {
      // Step 5: to fp32 toward zero (the nearest, one step back where it
      // rounded away from zero), then scaled by 2^(E - 25): exact, and normal.
      const f nearest = __builtin_convertvector(sum[g], f);
      const iv back = __builtin_convertvector(nearest, iv);
      const iv rounded_away = sum[g] < 0 ? back < sum[g] : back > sum[g];  // -1 where it did
      const f result =
          __builtin_bit_cast(f, __builtin_bit_cast(iv, nearest) + rounded_away) * from_units[g];
      c[g] = none[g] ? (c_zero[g] ? f{} : c[g]) : result;
    }
  }
  __builtin_memcpy(d_row, &c, sizeof c);
  return true;
}

// The whole tile in the fp32 form where it applies (all of B, and a row's A
// and c); returns how many rows did (the others are left to mma_dot).
template <MmaFormat format, int K, int KB, int W>
CUDALAB_TILE_INLINE int tile_in_fp32(const std::uint32_t* a, const std::uint32_t* b, const float* c,
                                     float* d, bool* row_done) {
  constexpr int G = Operands<W>::groups;
  Operands<W> op;
  bool b_fits = true;
#pragma GCC unroll 4
  for (int kk = 0; kk < K; ++kk) {
    for (int g = 0; g < G; ++g) {
      b_fits =
          decode<format, W>(b + kk * 8 + W * g, op.b_value[kk][g], op.b_exponent[kk][g]) && b_fits;
    }
  }
  if (!b_fits) return 0;
  bool a_fits[16];
#pragma GCC unroll 4
  for (int i = 0; i < 16; ++i) {
    a_fits[i] = true;
    for (int v = 0; v < K; v += W) {
      typename Lanes<W>::f value, exponent;
      a_fits[i] = decode<format, W>(a + i * K + v, value, exponent) && a_fits[i];
      __builtin_memcpy(&op.a_value[i][v], &value, sizeof value);
      __builtin_memcpy(&op.a_exponent[i][v], &exponent, sizeof exponent);
    }
  }
  int done = 0;
  for (int i = 0; i < 16; ++i) {
    float row[8];  // d may be c: written once the row is done
    row_done[i] = a_fits[i] && row_in_fp32<K, KB, W>(op, i, c + i * 8, row);
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
template <int W>
CUDALAB_TILE_INLINE int tile_in_fp32(MmaFormat format, int k, int k_block, const std::uint32_t* a,
                                     const std::uint32_t* b, const float* c, float* d,
                                     bool* row_done) {
  constexpr auto fp16 = MmaFormat::fp16, bf16 = MmaFormat::bf16, tf32 = MmaFormat::tf32;
  if (k == 16 && k_block == 16) {
    if (format == fp16) return tile_in_fp32<fp16, 16, 16, W>(a, b, c, d, row_done);
    if (format == bf16) return tile_in_fp32<bf16, 16, 16, W>(a, b, c, d, row_done);
  }
  if (k == 8 && k_block == 8 && format == tf32) {
    return tile_in_fp32<tf32, 8, 8, W>(a, b, c, d, row_done);
  }
  if (k == 8 && k_block == 4 && format == tf32) {
    return tile_in_fp32<tf32, 8, 4, W>(a, b, c, d, row_done);
  }
  if (k == 16 && k_block == 8 && format == fp16) {
    return tile_in_fp32<fp16, 16, 8, W>(a, b, c, d, row_done);
  }
  return -1;
}

inline int tile_in_4_lanes(MmaFormat format, int k, int k_block, const std::uint32_t* a,
                           const std::uint32_t* b, const float* c, float* d, bool* row_done) {
  return tile_in_fp32<4>(format, k, k_block, a, b, c, d, row_done);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define CUDALAB_MMA_TILE_AVX2 1
[[gnu::target("avx2")]] inline int tile_in_8_lanes(MmaFormat format, int k, int k_block,
                                                   const std::uint32_t* a, const std::uint32_t* b,
                                                   const float* c, float* d, bool* row_done) {
  return tile_in_fp32<8>(format, k, k_block, a, b, c, d, row_done);
}
inline bool has_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}
#endif

#undef CUDALAB_TILE_INLINE

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

}  // namespace mma_tile_detail

// Which vectors mma_tile_m16n8 uses: the widest this processor has (AVX2's
// 8 lanes where there are, else 4), or 4 lanes (the tests check both).
enum class MmaTileLanes { widest, four };

// The result: how many of the 16 rows took the fp32 form (the tests ask).
inline int mma_tile_m16n8(MmaFormat format, int k, int k_block, const std::uint32_t* a,
                          const std::uint32_t* b, const float* c, float* d,
                          MmaTileLanes lanes = MmaTileLanes::widest) {
  using namespace mma_tile_detail;
  bool row_done[16] = {};
  int done;
#if defined(CUDALAB_MMA_TILE_AVX2)
  if (lanes == MmaTileLanes::widest && has_avx2()) {
    done = tile_in_8_lanes(format, k, k_block, a, b, c, d, row_done);
  } else {
    done = tile_in_4_lanes(format, k, k_block, a, b, c, d, row_done);
  }
#else
  (void)lanes;
  done = tile_in_4_lanes(format, k, k_block, a, b, c, d, row_done);
#endif
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
