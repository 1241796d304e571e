// Inputs and the model's answers for the tensor-core GEMMs, shared by the
// emulator test and the GPU comparison.
#pragma once

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

inline std::size_t differing(const std::vector<float>& x, const std::vector<float>& y) {
  std::size_t count = x.size() == y.size() ? 0 : 1;
  for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) {
    if (nx::float_bits(x[i]) != nx::float_bits(y[i])) ++count;
  }
  return count;
}

}  // namespace tensor_cores
