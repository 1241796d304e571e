// The fp8 formats (cudalab/numerics/fp8.hpp), host only: every pattern of
// both formats decoded against the formula, their special patterns, the
// K-block model on sums it must get exactly, mixed formats included, its
// narrow widths, and blocks an H100 summed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "cudalab/numerics/fp8.hpp"
#include "fp8_h100_blocks.hpp"

namespace {

using namespace cudalab::numerics;

// (-1)^s * 2^(e - bias) * 1.f, or 2^(1 - bias) * 0.f for e = 0, from the fields.
double formula(unsigned bits, int exponent_bits, int fraction_bits) {
  const int bias = (1 << (exponent_bits - 1)) - 1;
  const unsigned fraction = bits & ((1u << fraction_bits) - 1u);
  const unsigned exponent = (bits >> fraction_bits) & ((1u << exponent_bits) - 1u);
  const double significand = std::ldexp(static_cast<double>(fraction), -fraction_bits);
  const double magnitude = exponent == 0
                               ? std::ldexp(significand, 1 - bias)
                               : std::ldexp(1.0 + significand, static_cast<int>(exponent) - bias);
  return (bits & 0x80u) ? -magnitude : magnitude;
}

TEST(NumericsFp8, E4m3DecodesEveryPatternWithOneNanAndNoInfinity) {
  for (unsigned bits = 0; bits < 256; ++bits) {
    const float value = fp8_bits_to_fp32(static_cast<std::uint8_t>(bits), Fp8Format::e4m3);
    if ((bits & 0x7fu) == 0x7fu) {
      EXPECT_EQ(float_bits(value), fp32_canonical_nan) << bits;
    } else {
      EXPECT_EQ(static_cast<double>(value), formula(bits, 4, 3)) << bits;
    }
  }
  EXPECT_EQ(fp8_bits_to_fp32(0x7e, Fp8Format::e4m3), 448.0f);  // the largest
  EXPECT_EQ(fp8_bits_to_fp32(0x78, Fp8Format::e4m3), 256.0f);  // exponent field 15: finite
  EXPECT_EQ(fp8_bits_to_fp32(0x01, Fp8Format::e4m3), std::ldexp(1.0f, -9));  // smallest subnormal
  EXPECT_EQ(float_bits(fp8_bits_to_fp32(0x80, Fp8Format::e4m3)), 0x80000000u);  // -0
}

TEST(NumericsFp8, E5m2DecodesEveryPatternAsIeeeDoes) {
  for (unsigned bits = 0; bits < 256; ++bits) {
    const float value = fp8_bits_to_fp32(static_cast<std::uint8_t>(bits), Fp8Format::e5m2);
    if ((bits & 0x7cu) == 0x7cu && (bits & 0x3u) != 0) {
      EXPECT_EQ(float_bits(value), fp32_canonical_nan) << bits;
    } else if ((bits & 0x7fu) == 0x7cu) {
      EXPECT_TRUE(std::isinf(value) && std::signbit(value) == ((bits & 0x80u) != 0)) << bits;
    } else {
      EXPECT_EQ(static_cast<double>(value), formula(bits, 5, 2)) << bits;
    }
  }
  EXPECT_EQ(fp8_bits_to_fp32(0x7b, Fp8Format::e5m2), 57344.0f);
  EXPECT_EQ(fp8_bits_to_fp32(0x01, Fp8Format::e5m2), std::ldexp(1.0f, -16));
}

// Small integers: every product and sum exact, so the block returns it.
TEST(NumericsFp8, ABlockOfExactProductsIsTheirSum) {
  // e4m3 3 = 0x44, 1.5 = 0x3c; e5m2 2 = 0x40, -0.5 = 0xb8.
  std::vector<std::uint8_t> a(32, 0x44), b(32, 0x40);
  EXPECT_EQ(fp8_block_fma(a.data(), b.data(), 32, 1.0f, Fp8Format::e4m3, Fp8Format::e5m2),
            32 * 6.0f + 1.0f);
  b.assign(32, 0xb8);
  a.assign(32, 0x3c);
  EXPECT_EQ(fp8_block_fma(a.data(), b.data(), 32, 0.0f, Fp8Format::e4m3, Fp8Format::e5m2),
            32 * -0.75f);
}

TEST(NumericsFp8, SpecialsFollowTheBlockModel) {
  std::vector<std::uint8_t> a(32, 0x38), b(32, 0x38);  // e4m3 1.0 (and e5m2 0.5)
  a[5] = 0x7f;                                         // e4m3 NaN
  EXPECT_TRUE(
      std::isnan(fp8_block_fma(a.data(), b.data(), 32, 0.0f, Fp8Format::e4m3, Fp8Format::e4m3)));
  a[5] = 0x7c;  // e5m2 +inf
  EXPECT_EQ(fp8_block_fma(a.data(), b.data(), 32, 0.0f, Fp8Format::e5m2, Fp8Format::e4m3),
            INFINITY);
  b[5] = 0x00;  // inf * 0
  EXPECT_TRUE(
      std::isnan(fp8_block_fma(a.data(), b.data(), 32, 0.0f, Fp8Format::e5m2, Fp8Format::e4m3)));
}

// A product below the 13 fraction bits kept under the alignment exponent
// (here c's, 0) is truncated away, toward zero whatever its sign.
TEST(NumericsFp8, TermsBelowTheThirteenKeptBitsAreTruncatedTowardZero) {
  std::vector<std::uint8_t> a(32, 0x00), b(32, 0x00);
  a[0] = 0x01;  // e4m3 2^-9, the smallest subnormal
  b[0] = 0x18;  // e4m3 2^-4: the product is 2^-13, the last kept bit
  EXPECT_EQ(fp8_block_fma(a.data(), b.data(), 32, 1.0f, Fp8Format::e4m3, Fp8Format::e4m3),
            1.0f + std::ldexp(1.0f, -13));
  b[0] = 0x10;  // 2^-5: the product 2^-14 is one bit too small
  EXPECT_EQ(fp8_block_fma(a.data(), b.data(), 32, 1.0f, Fp8Format::e4m3, Fp8Format::e4m3), 1.0f);
  b[0] = 0x90;  // -2^-5: toward zero, not down to 1 - 2^-13
  EXPECT_EQ(fp8_block_fma(a.data(), b.data(), 32, 1.0f, Fp8Format::e4m3, Fp8Format::e4m3), 1.0f);
  // Alone, the product sets the alignment and is kept.
  EXPECT_EQ(fp8_block_fma(a.data(), b.data(), 32, 0.0f, Fp8Format::e4m3, Fp8Format::e4m3),
            -std::ldexp(1.0f, -14));
}

// The sum keeps 14 significant bits: 33 + 2^-13 (kept by the alignment)
// loses its low bit when normalised.
TEST(NumericsFp8, TheSumIsTruncatedToFourteenSignificantBits) {
  const std::vector<std::uint8_t> ones(32, 0x38);  // e4m3 1.0
  const float c = 1.0f + std::ldexp(1.0f, -13);
  EXPECT_EQ(fp8_block_fma(ones.data(), ones.data(), 32, c, Fp8Format::e4m3, Fp8Format::e4m3),
            33.0f);
  const std::vector<std::uint8_t> minus_ones(32, 0xb8);
  EXPECT_EQ(fp8_block_fma(ones.data(), minus_ones.data(), 32, -c, Fp8Format::e4m3, Fp8Format::e4m3),
            -33.0f);
}

// Blocks an H100 summed (fp8_h100_blocks.hpp): the model gives its bits.
TEST(NumericsFp8, TheModelGivesTheH100sRecordedResults) {
  for (const fp8_h100::RecordedBlock& block : fp8_h100::recorded_blocks()) {
    const float d = fp8_block_fma(block.a.data(), block.b.data(), 32, float_from_bits(block.c),
                                  block.format_a, block.format_b);
    EXPECT_EQ(float_bits(d), block.gpu)
        << fp8_format_name(block.format_a) << " x " << fp8_format_name(block.format_b) << ", c 0x"
        << std::hex << block.c;
  }
}

}  // namespace
