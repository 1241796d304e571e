// The emulator's fast m16n8 tile (cudalab/numerics/mma_tile.hpp) against the
// block-FMA model itself (mma_dot), bit for bit, on random tiles of many
// kinds: every element of every tile must have the model's bits, and most
// rows must take the fast form (else this test would check only mma_dot).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "cudalab/numerics.hpp"
#include "cudalab/numerics/mma_tile.hpp"
#include "edge_vectors.hpp"

namespace {

using namespace cudalab::numerics;

struct Tile {
  std::uint32_t a[16 * 16];
  std::uint32_t b[16 * 8];
  float c[128];
};

class TileSource {
 public:
  TileSource(MmaFormat format, int k, std::uint64_t seed) : format_(format), k_(k), rng_(seed) {}

  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  // A finite operand with its exponent field drawn around `center`.
  std::uint32_t operand(int center, int spread) {
    const int fraction_bits = format_ == MmaFormat::fp16 ? 10 : format_ == MmaFormat::bf16 ? 7 : 23;
    const int bias = format_ == MmaFormat::fp16 ? 15 : 127;
    const int field_max = format_ == MmaFormat::fp16 ? 30 : 254;
    const int sign_shift = format_ == MmaFormat::tf32 ? 31 : 15;
    const std::uint32_t sign = static_cast<std::uint32_t>(uniform(0, 1)) << sign_shift;
    std::uint32_t fraction = static_cast<std::uint32_t>(rng_()) & ((1u << fraction_bits) - 1u);
    if (format_ == MmaFormat::tf32 && uniform(0, 1)) fraction &= ~0x1fffu;  // a TF32 value
    const int kind = uniform(0, 99);
    if (kind < 3) return sign;                                 // zero
    if (kind < 6 && extremes_) return sign | (fraction | 1u);  // subnormal
    if (kind < 9 && extremes_) {
      return sign | (static_cast<std::uint32_t>(field_max) << fraction_bits) |
             ((1u << fraction_bits) - 1u);  // the largest
    }
    int field = center + bias + uniform(-spread, spread);
    field = field < 1 ? 1 : field > field_max ? field_max : field;
    return sign | (static_cast<std::uint32_t>(field) << fraction_bits) | fraction;
  }

  float accumulator(int center, int spread) {
    const int kind = uniform(0, 19);
    if (kind == 0) return uniform(0, 1) ? 0.0f : -0.0f;
    if (kind == 1) return float_from_bits(static_cast<std::uint32_t>(rng_()) & 0x807fffffu);
    const int exponent = center + uniform(-spread, spread);
    const float magnitude = std::ldexp(1.0f + static_cast<float>(rng_() & 0x7fffffu) * 0x1p-23f,
                                       exponent < -149  ? -149
                                       : exponent > 127 ? 127
                                                        : exponent);
    return uniform(0, 1) ? -magnitude : magnitude;
  }

  std::uint32_t special() {
    const std::uint32_t patterns16[] = {0x7c00u, 0xfc00u, 0x7e00u, 0x7c01u};
    const std::uint32_t patternsb[] = {0x7f80u, 0xff80u, 0x7fc0u, 0x7f81u};
    const std::uint32_t patterns32[] = {0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7f800001u,
                                        0x7f802000u};
    if (format_ == MmaFormat::fp16) return patterns16[uniform(0, 3)];
    if (format_ == MmaFormat::bf16) return patternsb[uniform(0, 3)];
    return patterns32[uniform(0, 4)];
  }

  double value(std::uint32_t bits) const {
    if (format_ == MmaFormat::fp16) return fp16_bits_to_fp32(static_cast<std::uint16_t>(bits));
    if (format_ == MmaFormat::bf16) return bf16_bits_to_fp32(static_cast<std::uint16_t>(bits));
    return fp32_to_tf32(float_from_bits(bits), Tf32Rounding::toward_zero);
  }

  // Modes: 0 exponents within +-1 (carries), 1 spread wide (alignment),
  // 2 cancellation (pairs of opposite products, c minus the exact sum),
  // 3 tiny values and subnormals, 4 the largest values everywhere (sums near
  // 2^31), 5 small integers (exact), 6 all bits random, 7 one special.
  void fill(Tile& t, int mode) {
    // Subnormal and the largest operands in some modes only: for bf16 and
    // TF32 they leave the fp32 form (and one in B the whole tile).
    extremes_ = mode == 1 || mode == 3 || mode == 6 || (mode == 0 && uniform(0, 1));
    const int range = format_ == MmaFormat::fp16 ? 14 : 60;
    const int center = mode == 3 ? -range : uniform(-range / 2, range / 2);
    const int spread = mode == 0 ? 1 : mode == 1 ? range / 2 : 4;
    for (int i = 0; i < 16 * k_; ++i) t.a[i] = operand(center, spread);
    for (int i = 0; i < k_ * 8; ++i) t.b[i] = operand(0, spread);
    for (int i = 0; i < 128; ++i) t.c[i] = accumulator(center, spread + 4);
    const std::uint32_t sign = format_ == MmaFormat::tf32 ? 0x80000000u : 0x8000u;
    if (mode == 2) {
      for (int row = 0; row < 16; ++row) {
        for (int kk = 1; kk < k_; kk += 2) {
          if (uniform(0, 1)) t.a[row * k_ + kk] = t.a[row * k_ + kk - 1] ^ sign;
        }
      }
      for (int kk = 1; kk < k_; kk += 2) {
        for (int col = 0; col < 8; ++col) t.b[kk * 8 + col] = t.b[(kk - 1) * 8 + col];
      }
      for (int i = 0; i < 128; ++i) {
        if (!uniform(0, 1)) continue;
        double exact = 0;
        for (int kk = 0; kk < k_; ++kk)
          exact += value(t.a[(i / 8) * k_ + kk]) * value(t.b[kk * 8 + i % 8]);
        float c = static_cast<float>(-exact);
        c = float_from_bits(float_bits(c) + static_cast<std::uint32_t>(uniform(-2, 2)));
        t.c[i] = std::isfinite(c) ? c : 0.0f;
      }
    } else if (mode == 4) {
      // The largest value the fp32 form takes (fp16: 65504; bf16, TF32:
      // just below 2^51), same sign in a row, and c of the same size.
      const std::uint32_t largest = format_ == MmaFormat::fp16   ? 0x7bffu
                                    : format_ == MmaFormat::bf16 ? 0x58ffu
                                                                 : 0x58ffe000u;
      for (int i = 0; i < 16 * k_; ++i)
        t.a[i] = largest ^ ((i / k_) % 2 && uniform(0, 3) == 0 ? sign : 0);
      for (int i = 0; i < k_ * 8; ++i) t.b[i] = uniform(0, 7) ? largest : operand(0, 2);
      const float huge =
          static_cast<float>(value(largest) * value(largest) * (uniform(0, 1) ? 1 : -4));
      for (int i = 0; i < 128; ++i) t.c[i] = uniform(0, 2) ? huge : t.c[i];
    } else if (mode == 5) {
      for (int i = 0; i < 16 * k_; ++i) t.a[i] = operand_bits(static_cast<float>(uniform(-4, 4)));
      for (int i = 0; i < k_ * 8; ++i) t.b[i] = operand_bits(static_cast<float>(uniform(-4, 4)));
      for (int i = 0; i < 128; ++i) t.c[i] = static_cast<float>(uniform(-64, 64));
    } else if (mode == 6) {
      const std::uint32_t mask = format_ == MmaFormat::tf32 ? 0xffffffffu : 0xffffu;
      for (int i = 0; i < 16 * k_; ++i) t.a[i] = static_cast<std::uint32_t>(rng_()) & mask;
      for (int i = 0; i < k_ * 8; ++i) t.b[i] = static_cast<std::uint32_t>(rng_()) & mask;
      for (int i = 0; i < 128; ++i) t.c[i] = float_from_bits(static_cast<std::uint32_t>(rng_()));
    } else if (mode == 7) {
      const int where = uniform(0, 2);
      if (where == 0) t.a[uniform(0, 16 * k_ - 1)] = special();
      if (where == 1) t.b[uniform(0, k_ * 8 - 1)] = special();
      if (where == 2) {
        const float specials[] = {INFINITY, -INFINITY, NAN};
        t.c[uniform(0, 127)] = specials[uniform(0, 2)];
      }
    }
  }

 private:
  std::uint32_t operand_bits(float v) const {
    if (format_ == MmaFormat::fp16) return fp32_to_fp16_bits(v);
    if (format_ == MmaFormat::bf16) return fp32_to_bf16_bits(v);
    return float_bits(v);
  }

  MmaFormat format_;
  int k_;
  std::mt19937_64 rng_;
  bool extremes_ = true;
};

struct Counts {
  long elements = 0;
  long differing = 0;
  long rows = 0;
  long fast_rows = 0;
};

// Every element of the tile against mma_dot; the first few differences printed.
void check_tile(const Tile& t, MmaFormat format, int k, int k_block, Counts& counts,
                MmaTileLanes lanes) {
  float d[128];
  counts.fast_rows += mma_tile_m16n8(format, k, k_block, t.a, t.b, t.c, d, lanes);
  counts.rows += 16;
  for (int i = 0; i < 16; ++i) {
    for (int j = 0; j < 8; ++j) {
      std::uint32_t column[16];
      for (int kk = 0; kk < k; ++kk) column[kk] = t.b[kk * 8 + j];
      const float want = mma_dot(t.a + i * k, column, k, t.c[i * 8 + j], format, k_block);
      ++counts.elements;
      if (float_bits(want) != float_bits(d[i * 8 + j])) {
        if (++counts.differing <= 5) {
          ADD_FAILURE() << "row " << i << " column " << j << ": model 0x" << std::hex
                        << float_bits(want) << ", tile 0x" << float_bits(d[i * 8 + j]) << " (c 0x"
                        << float_bits(t.c[i * 8 + j]) << ")";
        }
      }
    }
  }
}

// CUDALAB_MMA_TILE_TILES=<n> checks n tiles per format instead of 4,000.
int tiles() {
  const char* n = std::getenv("CUDALAB_MMA_TILE_TILES");
  return n ? std::atoi(n) : 4000;
}

// Both vector widths (AVX2's 8 lanes where the processor has them, and 4).
void check_format(MmaFormat format, int k, int k_block, std::uint64_t seed, double fast_share) {
  for (MmaTileLanes lanes : {MmaTileLanes::widest, MmaTileLanes::four}) {
    TileSource source(format, k, seed);
    Counts counts;
    Tile t{};
    for (int n = 0; n < tiles(); ++n) {
      source.fill(t, n % 8);
      check_tile(t, format, k, k_block, counts, lanes);
    }
    // d may be c.
    source.fill(t, 0);
    float d[128];
    mma_tile_m16n8(format, k, k_block, t.a, t.b, t.c, d, lanes);
    mma_tile_m16n8(format, k, k_block, t.a, t.b, t.c, t.c, lanes);
    for (int i = 0; i < 128; ++i) EXPECT_EQ(float_bits(d[i]), float_bits(t.c[i])) << i;

    std::printf("%s lanes: %ld elements, %ld differ; %ld of %ld rows in the fp32 form\n",
                lanes == MmaTileLanes::four ? "4" : "widest", counts.elements, counts.differing,
                counts.fast_rows, counts.rows);
    EXPECT_EQ(counts.differing, 0);
    EXPECT_GE(static_cast<double>(counts.fast_rows), fast_share * static_cast<double>(counts.rows));
  }
}

TEST(NumericsMmaTile, Fp16SameBitsAsTheModel) { check_format(MmaFormat::fp16, 16, 16, 1, 0.5); }
TEST(NumericsMmaTile, Bf16SameBitsAsTheModel) { check_format(MmaFormat::bf16, 16, 16, 2, 0.3); }
TEST(NumericsMmaTile, Tf32SameBitsAsTheModel) { check_format(MmaFormat::tf32, 8, 8, 3, 0.3); }
// wmma's m16n16k8 TF32: blocks of 4, chained.
TEST(NumericsMmaTile, Tf32InBlocksOf4SameBitsAsTheModel) {
  check_format(MmaFormat::tf32, 8, 4, 4, 0.3);
}
TEST(NumericsMmaTile, Fp16InBlocksOf8SameBitsAsTheModel) {
  check_format(MmaFormat::fp16, 16, 8, 5, 0.5);
}

// The model's edge vectors as row 0 and column 0 of a tile, the rest zero.
TEST(NumericsMmaTile, EdgeVectors) {
  for (const auto& v : test_vectors::edge_vectors()) {
    const int k = v.format == MmaFormat::tf32 ? 8 : 16;
    if (static_cast<int>(v.a.size()) > k) continue;
    Tile t{};
    for (std::size_t kk = 0; kk < v.a.size(); ++kk) {
      t.a[kk] = test_vectors::operand_bits(v.a[kk], v.format);
      t.b[kk * 8] = test_vectors::operand_bits(v.b[kk], v.format);
    }
    t.c[0] = v.c;
    float d[128];
    mma_tile_m16n8(v.format, k, mma_k_block(v.format), t.a, t.b, t.c, d);
    EXPECT_EQ(float_bits(d[0]), v.expected_bits) << v.name;
    for (MmaTileLanes lanes : {MmaTileLanes::widest, MmaTileLanes::four}) {
      Counts counts;
      check_tile(t, v.format, k, mma_k_block(v.format), counts, lanes);
      EXPECT_EQ(counts.differing, 0) << v.name;
    }
  }
}

}  // namespace
