// Inputs and the model's answers for the tensor-core GEMMs, shared by the
// emulator test and the GPU comparison.
#pragma once

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "cudalab/numerics.hpp"

namespace tensor_cores {

namespace nx = cudalab::numerics;

inline std::vector<float> random_floats(std::size_t n, unsigned seed, bool integers) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::uniform_int_distribution<int> integer(-4, 4);
  std::vector<float> v(n);
  for (auto& x : v) x = integers ? static_cast<float>(integer(rng)) : real(rng);
  return v;
}

inline std::vector<std::uint16_t> to_fp16(const std::vector<float>& v) {
  std::vector<std::uint16_t> h(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) h[i] = nx::fp32_to_fp16_bits(v[i]);
  return h;
}

// B (k x n, row-major) stored column-major: element (r, c) at c * k + r.
template <class T>
std::vector<T> column_major(const std::vector<T>& b, int k, int n) {
  std::vector<T> t(b.size());
  for (int r = 0; r < k; ++r)
    for (int c = 0; c < n; ++c)
      t[static_cast<std::size_t>(c) * k + r] = b[static_cast<std::size_t>(r) * n + c];
  return t;
}

// C = A·B by the block-FMA model; a and b as operand bit patterns
// (fp16 in the low 16 bits, TF32 as fp32), C starting at 0.
inline std::vector<float> model_gemm(const std::vector<std::uint32_t>& a,
                                     const std::vector<std::uint32_t>& b, int m, int n, int k,
                                     nx::MmaFormat format, int k_block) {
  std::vector<float> c(static_cast<std::size_t>(m) * n);
  std::vector<std::uint32_t> row(k), column(k);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      for (int x = 0; x < k; ++x) {
        row[x] = a[static_cast<std::size_t>(i) * k + x];
        column[x] = b[static_cast<std::size_t>(x) * n + j];
      }
      c[static_cast<std::size_t>(i) * n + j] =
          nx::mma_dot(row.data(), column.data(), k, 0.0f, format, k_block);
    }
  }
  return c;
}

inline std::vector<float> model_fp16_gemm(const std::vector<std::uint16_t>& a,
                                          const std::vector<std::uint16_t>& b, int m, int n,
                                          int k) {
  return model_gemm(std::vector<std::uint32_t>(a.begin(), a.end()),
                    std::vector<std::uint32_t>(b.begin(), b.end()), m, n, k, nx::MmaFormat::fp16,
                    16);
}

// What the kernel feeds the tensor core: wmma::__float_to_tf32 (ties away).
// The operands as __float_to_tf32 makes them (ties away), as bit patterns.
inline std::vector<std::uint32_t> tf32_bits(const std::vector<float>& v) {
  std::vector<std::uint32_t> bits(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    bits[i] = nx::float_bits(nx::fp32_to_tf32(v[i], nx::Tf32Rounding::ties_away));
  }
  return bits;
}

inline std::vector<float> model_tf32_gemm(const std::vector<float>& a, const std::vector<float>& b,
                                          int m, int n, int k) {
  // wmma's TF32 mma sums blocks of 4 (cudalab::emu::wmma_k_block).
  return model_gemm(tf32_bits(a), tf32_bits(b), m, n, k, nx::MmaFormat::tf32, 4);
}

// A 16 x 16 fp16 problem that tells one K-block of 16 from two of 8: row 0
// of A times column 0 of B is 1 + 2^-24 (k = 1) + 2^-24 (k = 9). One block
// keeps both small products: 1 + 2^-23 (0x3f800001); two blocks truncate
// each away: 1.0.
struct KBlockProbe {
  std::vector<std::uint16_t> a, b;  // row-major, 16 x 16 each
};
inline KBlockProbe k_block_probe() {
  KBlockProbe p{std::vector<std::uint16_t>(256, 0), std::vector<std::uint16_t>(256, 0)};
  const std::uint16_t one = 0x3c00, two_to_minus_12 = 0x0c00;
  p.a[0] = one;
  p.b[0] = one;
  for (int k : {1, 9}) {
    p.a[k] = two_to_minus_12;
    p.b[static_cast<std::size_t>(k) * 16] = two_to_minus_12;
  }
  return p;
}

// Every lane's six registers for one bf16 m16n8k16 or tf32 m16n8k8
// instruction: random finite operands with exponents within 2^-8 .. 2^8.
inline std::vector<std::uint32_t> random_registers(unsigned seed, bool tf32) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::uint32_t> bits(0, 0xffffffffu);
  std::uniform_int_distribution<std::uint32_t> exponent(127 - 8, 127 + 8);
  auto operand = [&]() -> std::uint32_t {  // an fp32 pattern; bf16 keeps its top half
    return (bits(rng) & 0x807fffffu) | exponent(rng) << 23;
  };
  std::vector<std::uint32_t> registers(32 * 6);
  for (std::uint32_t& r : registers) {
    r = tf32 ? operand() : (operand() >> 16) | (operand() & 0xffff0000u);
  }
  return registers;
}

// What one such instruction gives each lane by the block-FMA model, c = 0.
inline std::vector<float> model_one_instruction(const std::vector<std::uint32_t>& registers,
                                                bool tf32) {
  const int k = tf32 ? 8 : 16;
  const nx::MmaFormat format = tf32 ? nx::MmaFormat::tf32 : nx::MmaFormat::bf16;
  std::uint32_t a[16][16] = {}, b_columns[8][16] = {};  // A [row][k], B [column][k]
  for (int lane = 0; lane < 32; ++lane) {
    const std::uint32_t* r = &registers[6 * lane];
    for (int e = 0; e < (tf32 ? 4 : 8); ++e) {
      const nx::MatrixCoord at =
          tf32 ? nx::m16n8k8_tf32_a_element(lane, e) : nx::m16n8k16_a_element(lane, e);
      a[at.row][at.col] = tf32 ? r[e] : (e % 2 == 0 ? r[e / 2] & 0xffffu : r[e / 2] >> 16);
    }
    for (int e = 0; e < (tf32 ? 2 : 4); ++e) {
      const nx::MatrixCoord at =
          tf32 ? nx::m16n8k8_tf32_b_element(lane, e) : nx::m16n8k16_b_element(lane, e);
      b_columns[at.col][at.row] =
          tf32 ? r[4 + e] : (e % 2 == 0 ? r[4 + e / 2] & 0xffffu : r[4 + e / 2] >> 16);
    }
  }
  std::vector<float> d(32 * 4);
  for (int lane = 0; lane < 32; ++lane) {
    for (int i = 0; i < 4; ++i) {
      const nx::MatrixCoord at = nx::m16n8_c_element(lane, i);
      d[4 * lane + i] = nx::mma_dot(a[at.row], b_columns[at.col], k, 0.0f, format);
    }
  }
  return d;
}

// One 16 x 16 x 16 tile, D = A·B + C, whose D holds infinities and NaNs,
// fp16 or bf16 operands (bit patterns). Rows of D, by column j % 4 (B's rows
// 0 and 1 are s, -s, 0, 1 there; s = 1, or 2^100 in bf16):
//   0  A[0][0] = +inf:            +inf, -inf, NaN (inf * 0), +inf
//   1  A[1][0] = -inf:            the mirror of row 0
//   2  A[2][0] = NaN:             NaN
//   3  C = +inf, -inf, NaN, FLT_MAX (finite A, B)
//   4  A[4][0..1] = +inf, -inf:   NaN (inf - inf, or inf * 0)
//   5  A[5][0..1] = s, s:         bf16: +inf, -inf (2 * 2^200 overflows fp32), 0, 2^101
//   6  A[6][0..1] = s, -s:        bf16: products of 2^200 that cancel exactly; what
//                                 is left of the small terms at that alignment
// The other elements: small integers, so the finite results are exact.
struct SpecialsTile {
  bool bf16 = false;
  std::vector<std::uint16_t> a;            // 16 x 16, row-major
  std::vector<std::uint16_t> b_col_major;  // B (16 x 16, k x n), element (k, n) at n * 16 + k
  std::vector<float> c;                    // 16 x 16, row-major
};

inline SpecialsTile specials_tile(bool bf16) {
  auto pattern = [bf16](float v) {
    return bf16 ? nx::fp32_to_bf16_bits(v) : nx::fp32_to_fp16_bits(v);
  };
  const std::uint16_t plus_inf = bf16 ? 0x7f80 : 0x7c00, minus_inf = bf16 ? 0xff80 : 0xfc00;
  const std::uint16_t nan = bf16 ? 0x7fc0 : 0x7e00;
  const float s = bf16 ? std::ldexp(1.0f, 100) : 1.0f;
  SpecialsTile t{bf16, std::vector<std::uint16_t>(256), std::vector<std::uint16_t>(256),
                 std::vector<float>(256)};
  const std::vector<float> filler = random_floats(3 * 256, 21, true);  // integers in [-4, 4]
  for (int i = 0; i < 256; ++i) {
    t.a[i] = pattern(filler[i]);
    t.b_col_major[i] = pattern(filler[256 + i]);
    t.c[i] = filler[512 + i];
  }
  auto a = [&t](int row, int k) -> std::uint16_t& { return t.a[16 * row + k]; };
  for (int n = 0; n < 16; ++n) {
    const float b_value[4] = {s, -s, 0.0f, 1.0f};
    t.b_col_major[16 * n + 0] = t.b_col_major[16 * n + 1] = pattern(b_value[n % 4]);
  }
  a(0, 0) = plus_inf;
  a(1, 0) = minus_inf;
  a(2, 0) = nan;
  const float c_row3[4] = {INFINITY, -INFINITY, NAN, FLT_MAX};
  for (int n = 0; n < 16; ++n) t.c[16 * 3 + n] = c_row3[n % 4];
  a(4, 0) = plus_inf;
  a(4, 1) = minus_inf;
  a(5, 0) = a(5, 1) = pattern(s);
  a(6, 0) = pattern(s);
  a(6, 1) = pattern(-s);
  return t;
}

// D of that tile by the block-FMA model: one block of 16 per element.
inline std::vector<float> model_tile(const SpecialsTile& t) {
  const nx::MmaFormat format = t.bf16 ? nx::MmaFormat::bf16 : nx::MmaFormat::fp16;
  std::vector<float> d(256);
  std::uint32_t row[16], column[16];
  for (int m = 0; m < 16; ++m) {
    for (int n = 0; n < 16; ++n) {
      for (int k = 0; k < 16; ++k) {
        row[k] = t.a[16 * m + k];
        column[k] = t.b_col_major[16 * n + k];
      }
      d[16 * m + n] = nx::mma_dot(row, column, 16, t.c[16 * m + n], format, 16);
    }
  }
  return d;
}

inline std::size_t differing(const std::vector<float>& x, const std::vector<float>& y) {
  std::size_t count = x.size() == y.size() ? 0 : 1;
  for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) {
    if (nx::float_bits(x[i]) != nx::float_bits(y[i])) ++count;
  }
  return count;
}

}  // namespace tensor_cores
