// The fp8 formats (cudalab/numerics/fp8.hpp), host only: every pattern of
// both formats decoded against the formula, their special patterns, and the
// K-block model on sums it must get exactly, mixed formats included.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "cudalab/numerics/fp8.hpp"

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

// A small product below the alignment's 25 kept bits is truncated away.
TEST(NumericsFp8, TermsBelowTheKeptBitsAreTruncated) {
  std::vector<std::uint8_t> a(32, 0x00), b(32, 0x00);
  a[0] = b[0] = 0x01;  // e4m3 2^-9 each: the product is 2^-18
  EXPECT_EQ(fp8_block_fma(a.data(), b.data(), 32, 1024.0f, Fp8Format::e4m3, Fp8Format::e4m3),
            1024.0f);
  EXPECT_EQ(fp8_block_fma(a.data(), b.data(), 32, 0.0f, Fp8Format::e4m3, Fp8Format::e4m3),
            std::ldexp(1.0f, -18));
}

}  // namespace
