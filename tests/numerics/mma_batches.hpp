// Batches of mma.sync-shaped problems (16 x K A, K x 8 B, 16 x 8 C) with
// random and hand-made operands, and their comparison with the block-FMA
// model: what the GPU numerics tests feed to mma.sync (numerics_gpu_test.cu)
// and to wgmma (wgmma_numerics_gpu_test.cu). Host code only.
#pragma once

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "cudalab/numerics.hpp"
#include "edge_vectors.hpp"

namespace cudalab::numerics::test_batches {

inline const char* format_name(MmaFormat f) {
  return f == MmaFormat::fp16 ? "fp16" : f == MmaFormat::bf16 ? "bf16" : "tf32";
}

struct MmaBatch {
  MmaFormat format;
  int k;
  int count = 0;
  std::vector<std::uint32_t> a, b;  // count * 16 * k, count * k * 8
  std::vector<float> c, d;          // count * 128 each
};

// Random operand patterns with exponents drawn around `center`, `spread`
// either side: wide spreads exercise alignment, narrow ones carries; some
// zeros and subnormals. TF32 operands are raw fp32 patterns (all 32 bits
// random), as a kernel would pass them.
class OperandSource {
 public:
  OperandSource(MmaFormat format, std::uint64_t seed) : format_(format), rng_(seed) {}

  std::uint32_t operand(int center, int spread) {
    const int fraction_bits = format_ == MmaFormat::fp16 ? 10 : format_ == MmaFormat::bf16 ? 7 : 23;
    const int bias = format_ == MmaFormat::fp16 ? 15 : 127;
    const int field_max = format_ == MmaFormat::fp16 ? 30 : 254;
    const int sign_shift = format_ == MmaFormat::tf32 ? 31 : 15;
    const std::uint32_t sign = static_cast<std::uint32_t>(uniform(0, 1)) << sign_shift;
    const std::uint32_t fraction =
        static_cast<std::uint32_t>(rng_()) & ((1u << fraction_bits) - 1u);
    const int kind = uniform(0, 99);
    if (kind < 3) return sign;                    // zero
    if (kind < 6) return sign | (fraction | 1u);  // subnormal
    int field = center + bias + uniform(-spread, spread);
    field = field < 1 ? 1 : field > field_max ? field_max : field;
    return sign | (static_cast<std::uint32_t>(field) << fraction_bits) | fraction;
  }

  float accumulator(int center, int spread) {
    if (uniform(0, 9) == 0) return uniform(0, 1) ? 0.0f : -0.0f;
    const int exponent = center + uniform(-spread, spread);
    const float magnitude = std::ldexp(1.0f + static_cast<float>(rng_() & 0x7fffffu) * 0x1p-23f,
                                       exponent < -149  ? -149
                                       : exponent > 127 ? 127
                                                        : exponent);
    return uniform(0, 1) ? -magnitude : magnitude;
  }

  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

 private:
  MmaFormat format_;
  std::mt19937_64 rng_;
};

inline double operand_value(std::uint32_t bits, MmaFormat f) {
  if (f == MmaFormat::fp16) return fp16_bits_to_fp32(static_cast<std::uint16_t>(bits));
  if (f == MmaFormat::bf16) return bf16_bits_to_fp32(static_cast<std::uint16_t>(bits));
  return fp32_to_tf32(float_from_bits(bits), Tf32Rounding::toward_zero);
}

inline MmaBatch random_batch(MmaFormat format, int count, std::uint64_t seed) {
  MmaBatch batch{format, format == MmaFormat::tf32 ? 8 : 16};
  OperandSource source(format, seed);
  const int range = format == MmaFormat::fp16 ? 14 : 60;  // how far exponents may wander
  for (int m = 0; m < count; ++m) {
    const int mode = m % 4;
    const int center = mode == 3 ? -range : source.uniform(-range / 2, range / 2);
    const int spread = mode == 0 ? 1 : mode == 1 ? range / 2 : 4;
    const std::size_t a0 = batch.a.size(), b0 = batch.b.size();
    for (int i = 0; i < 16 * batch.k; ++i) batch.a.push_back(source.operand(center, spread));
    for (int i = 0; i < batch.k * 8; ++i) batch.b.push_back(source.operand(0, spread));
    if (mode == 2) {
      // Cancellation: odd k repeats the previous product with the other sign.
      for (int row = 0; row < 16; ++row) {
        for (int k = 1; k < batch.k; k += 2) {
          if (source.uniform(0, 1)) {
            const std::uint32_t sign = format == MmaFormat::tf32 ? 0x80000000u : 0x8000u;
            batch.a[a0 + row * batch.k + k] = batch.a[a0 + row * batch.k + k - 1] ^ sign;
          }
        }
      }
      for (int k = 1; k < batch.k; k += 2) {
        for (int col = 0; col < 8; ++col)
          batch.b[b0 + k * 8 + col] = batch.b[b0 + (k - 1) * 8 + col];
      }
    }
    for (int row = 0; row < 16; ++row) {
      for (int col = 0; col < 8; ++col) {
        float c = source.accumulator(center, spread + 4);
        if (mode == 2 && source.uniform(0, 1)) {
          // c close to minus the exact products: the sum cancels to its last bits.
          double exact = 0;
          for (int k = 0; k < batch.k; ++k) {
            exact += operand_value(batch.a[a0 + row * batch.k + k], format) *
                     operand_value(batch.b[b0 + k * 8 + col], format);
          }
          c = static_cast<float>(-exact);
          c = float_from_bits(float_bits(c) + static_cast<std::uint32_t>(source.uniform(-2, 2)));
          if (std::isnan(c) || std::isinf(c)) c = 0.0f;
        }
        batch.c.push_back(c);
      }
    }
  }
  batch.count = count;
  return batch;
}

// `count` problems of random operands (random_batch's) in which about one
// operand in 8, and one accumulator in 8, is replaced by a special: +-0,
// +-infinity, a NaN (quiet or signalling, random payload), the smallest
// subnormal or the largest finite value of its format (whose products
// overflow fp32 for bf16 and TF32).
inline void append_special_problems(MmaBatch& batch, int count, std::uint64_t seed) {
  const MmaBatch random = random_batch(batch.format, count, seed);
  std::mt19937_64 rng(seed ^ 0x5bec1a15u);
  const bool wide = batch.format == MmaFormat::tf32;
  const std::uint32_t sign = wide ? 0x80000000u : 0x8000u;
  const std::uint32_t infinity = batch.format == MmaFormat::fp16   ? 0x7c00u
                                 : batch.format == MmaFormat::bf16 ? 0x7f80u
                                                                   : 0x7f800000u;
  const std::uint32_t fraction_mask = batch.format == MmaFormat::fp16   ? 0x3ffu
                                      : batch.format == MmaFormat::bf16 ? 0x7fu
                                                                        : 0x7fffe000u & 0x7fffffu;
  const auto special_operand = [&]() -> std::uint32_t {
    const std::uint32_t s = (rng() & 1u) ? sign : 0u;
    switch (rng() % 6) {
      case 0:
        return s;  // +-0
      case 1:
        return s | infinity;
      case 2: {
        std::uint32_t payload = static_cast<std::uint32_t>(rng()) & fraction_mask;
        return s | infinity | (payload == 0 ? fraction_mask : payload);  // a NaN
      }
      case 3:
        return s | (wide ? 0x2000u : 1u);  // the smallest subnormal (TF32's lowest kept bit)
      default:
        return s | (infinity - (wide ? 0x2000u : 1u));  // the largest finite value
    }
  };
  const float specials[] = {0.0f,
                            -0.0f,
                            float_from_bits(0x7f800000u),
                            float_from_bits(0xff800000u),
                            float_from_bits(0x7fc00001u),
                            float_from_bits(0x7f800001u),
                            float_from_bits(0x00000001u),
                            float_from_bits(0x7f7fffffu)};
  for (std::uint32_t bits : random.a) batch.a.push_back(rng() % 8 == 0 ? special_operand() : bits);
  for (std::uint32_t bits : random.b) batch.b.push_back(rng() % 8 == 0 ? special_operand() : bits);
  for (float c : random.c) batch.c.push_back(rng() % 8 == 0 ? specials[rng() % 8] : c);
  batch.count += count;
}

// The edge vectors of this format, one per mma (row 0 of A, column 0 of B,
// C[0][0]), every other element zero; and the K-block probe: c = 1 and two
// products of 2^-24, at k = 0 and k = K/2 (1 + 2^-23 in one block, 1.0 when
// two chained blocks each round toward zero).
inline void append_edge_vectors(MmaBatch& batch) {
  auto vectors = test_vectors::edge_vectors();
  test_vectors::EdgeVector probe{"K-block probe",
                                 batch.format,
                                 std::vector<float>(batch.k, 0.0f),
                                 std::vector<float>(batch.k, 0.0f),
                                 1.0f,
                                 0};
  probe.a[0] = probe.a[batch.k / 2] = probe.b[0] = probe.b[batch.k / 2] = std::ldexp(1.0f, -12);
  vectors.push_back(probe);
  for (const auto& v : vectors) {
    if (v.format != batch.format || static_cast<int>(v.a.size()) > batch.k) continue;
    const std::size_t a0 = batch.a.size(), b0 = batch.b.size(), c0 = batch.c.size();
    batch.a.resize(a0 + 16 * batch.k, 0);
    batch.b.resize(b0 + batch.k * 8, 0);
    batch.c.resize(c0 + 128, 0.0f);
    for (std::size_t k = 0; k < v.a.size(); ++k) {
      batch.a[a0 + k] = test_vectors::operand_bits(v.a[k], batch.format);
      batch.b[b0 + k * 8] = test_vectors::operand_bits(v.b[k], batch.format);
    }
    batch.c[c0] = v.c;
    ++batch.count;
  }
}

struct Comparison {
  long blocks = 0;
  long differing_blocks = 0;
  long differing_bits = 0;
  // The first few differences, each with its inputs and both answers (what
  // a lead needs to fix the model from one device run).
  nlohmann::json first_differences = nlohmann::json::array();
};

inline std::string hex_bits(std::uint32_t bits) {
  char text[11];
  std::snprintf(text, sizeof text, "0x%08x", bits);
  return text;
}

// Every output element of the batch against mma_dot with blocks of `k_block`.
inline Comparison compare_with_model(const MmaBatch& batch, int k_block, bool print) {
  Comparison result;
  std::vector<std::uint32_t> a_row(batch.k), b_col(batch.k);
  for (int m = 0; m < batch.count; ++m) {
    for (int row = 0; row < 16; ++row) {
      for (int col = 0; col < 8; ++col) {
        for (int k = 0; k < batch.k; ++k) {
          a_row[k] = batch.a[(m * 16 + row) * batch.k + k];
          b_col[k] = batch.b[(m * batch.k + k) * 8 + col];
        }
        const std::size_t at = m * 128 + row * 8 + col;
        const std::uint32_t model = float_bits(
            mma_dot(a_row.data(), b_col.data(), batch.k, batch.c[at], batch.format, k_block));
        const std::uint32_t gpu = float_bits(batch.d[at]);
        ++result.blocks;
        if (model == gpu) continue;
        ++result.differing_blocks;
        result.differing_bits += std::popcount(model ^ gpu);
        if (result.first_differences.size() < 16) {
          nlohmann::json a = nlohmann::json::array(), b = nlohmann::json::array();
          for (int k = 0; k < batch.k; ++k) {
            a.push_back(hex_bits(a_row[k]));
            b.push_back(hex_bits(b_col[k]));
          }
          result.first_differences.push_back({{"problem", m},
                                              {"row", row},
                                              {"column", col},
                                              {"a", a},
                                              {"b", b},
                                              {"c", hex_bits(float_bits(batch.c[at]))},
                                              {"gpu", hex_bits(gpu)},
                                              {"model", hex_bits(model)},
                                              {"differing_bits", hex_bits(model ^ gpu)}});
        }
        if (print && result.differing_blocks <= 5) {
          std::printf("  %s mma %d (%d,%d): c 0x%08x gpu 0x%08x model 0x%08x; a:",
                      format_name(batch.format), m, row, col, float_bits(batch.c[at]), gpu, model);
          for (int k = 0; k < batch.k; ++k) std::printf(" %x*%x", a_row[k], b_col[k]);
          std::printf("\n");
        }
      }
    }
  }
  return result;
}

inline const char* output_dir() { return std::getenv("CUDALAB_NUMERICS_OUT"); }

}  // namespace cudalab::numerics::test_batches
