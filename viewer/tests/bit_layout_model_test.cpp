#include "model/bit_layout_model.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "cudalab/numerics.hpp"

namespace cudalab::viewer {
namespace {

const FormatBits& format(const BitLayout& layout, const std::string& name) {
  for (const FormatBits& f : layout.formats)
    if (f.name == name) return f;
  throw std::runtime_error("no format " + name);
}

TEST(BitLayoutModel, ListsFp32ThenTheNarrowerFormats) {
  const BitLayout b = bit_layout(1.0f);
  std::vector<std::string> names;
  for (const FormatBits& f : b.formats) names.push_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"fp32", "TF32 toward zero", "TF32 ties away",
                                             "TF32 nearest even", "bf16", "fp16"}));
  EXPECT_EQ(format(b, "fp32").width(), 32);
  EXPECT_EQ(format(b, "TF32 nearest even").width(), 19);
  EXPECT_EQ(format(b, "bf16").width(), 16);
  EXPECT_EQ(format(b, "fp16").width(), 16);
}

TEST(BitLayoutModel, OnePlusTwoToTheMinus11DropsExactlyTheTieBitInTf32) {
  const BitLayout b = bit_layout(1.0f + 0x1p-11f);  // 0x3f801000
  const FormatBits& even = format(b, "TF32 nearest even");
  EXPECT_EQ(even.dropped_bits, 13);
  EXPECT_EQ(even.dropped, 0x1000u);  // exactly the highest dropped bit
  EXPECT_TRUE(even.tie);
  EXPECT_EQ(even.direction, RoundingDirection::kDown);  // to the even neighbour, 1.0
  EXPECT_EQ(even.decoded, 1.0);
  EXPECT_EQ(even.bits, 0x3f800000u >> 13);
  EXPECT_DOUBLE_EQ(even.relative_error, 0x1p-11 / (1 + 0x1p-11));

  const FormatBits& away = format(b, "TF32 ties away");
  EXPECT_TRUE(away.tie);
  EXPECT_EQ(away.direction, RoundingDirection::kUp);
  EXPECT_EQ(away.decoded, 1.0 + 0x1p-10);
  EXPECT_EQ(format(b, "TF32 toward zero").direction, RoundingDirection::kDown);

  // The dropped cells show the dropped bits: a 1 then twelve 0s.
  EXPECT_EQ(even.cells(), 19 + 13);
  EXPECT_EQ(even.field(19), BitField::kDropped);
  EXPECT_EQ(even.bit(19), 1);
  for (int i = 20; i < even.cells(); ++i) EXPECT_EQ(even.bit(i), 0) << i;
}

TEST(BitLayoutModel, BitsAndFieldsReadThePatternFromTheLeft) {
  const FormatBits& f = format(bit_layout(-2.0f), "fp16");  // 0xc000: 1 10000 0000000000
  EXPECT_EQ(f.bits, 0xc000u);
  EXPECT_EQ(f.field(0), BitField::kSign);
  EXPECT_EQ(f.bit(0), 1);
  EXPECT_EQ(f.field(1), BitField::kExponent);
  EXPECT_EQ(f.bit(1), 1);
  EXPECT_EQ(f.field(5), BitField::kExponent);
  EXPECT_EQ(f.bit(5), 0);
  EXPECT_EQ(f.field(6), BitField::kMantissa);
  EXPECT_EQ(f.direction, RoundingDirection::kExact);
  EXPECT_EQ(f.relative_error, 0.0);
}

TEST(BitLayoutModel, Fp16OverflowsAt65520) {
  const FormatBits& f = format(bit_layout(65520.0f), "fp16");
  EXPECT_TRUE(f.overflowed);
  EXPECT_EQ(f.value_class, ValueClass::kInfinity);
  EXPECT_EQ(f.bits, 0x7c00u);
  EXPECT_TRUE(std::isinf(f.relative_error));
  EXPECT_NE(describe(f).find("OVERFLOW"), std::string::npos) << describe(f);
  // 65504 is the largest fp16 and stays; bf16 holds 65520 approximately.
  EXPECT_FALSE(format(bit_layout(65504.0f), "fp16").overflowed);
  EXPECT_FALSE(format(bit_layout(65520.0f), "bf16").overflowed);
}

TEST(BitLayoutModel, OneMillionthIsSubnormalInFp16AndLosesBits) {
  const FormatBits& f = format(bit_layout(1e-6f), "fp16");
  EXPECT_EQ(f.value_class, ValueClass::kSubnormal);
  EXPECT_EQ(f.bits, numerics::fp32_to_fp16_bits(1e-6f));
  // 1e-6 is about 2^-19.9: 2^-20 <= x < 2^-19, 6 binades below 2^-14, so
  // fp16 keeps 10 - 6 = 4 of its fraction bits and drops 19.
  EXPECT_EQ(f.dropped_bits, 19);
  EXPECT_GT(f.relative_error, 1e-3);  // far worse than a normal fp16's 2^-11
  EXPECT_EQ(format(bit_layout(1e-6f), "bf16").value_class, ValueClass::kNormal);
}

TEST(BitLayoutModel, TinyValuesFlushToZeroInFp16) {
  const FormatBits& f = format(bit_layout(1e-9f), "fp16");
  EXPECT_TRUE(f.flushed);
  EXPECT_EQ(f.value_class, ValueClass::kZero);
  EXPECT_EQ(f.dropped_bits, 24);  // every bit of the significand, the leading 1 too
  EXPECT_FALSE(f.tie);
  // 2^-25 is exactly half the smallest fp16 subnormal: a tie, to the even 0.
  const FormatBits& half_step = format(bit_layout(0x1p-25f), "fp16");
  EXPECT_TRUE(half_step.tie);
  EXPECT_TRUE(half_step.flushed);
}

TEST(BitLayoutModel, NaNIsFlaggedInEveryFormat) {
  const BitLayout b = bit_layout(NAN);
  for (const FormatBits& f : b.formats) {
    EXPECT_EQ(f.value_class, ValueClass::kNaN) << f.name;
    EXPECT_TRUE(std::isnan(f.relative_error)) << f.name;
    EXPECT_EQ(f.dropped_bits, 0) << f.name;
  }
}

TEST(BitLayoutModel, AgreesWithNumericsOnRandomPatterns) {
  std::uint32_t state = 12345;
  for (int i = 0; i < 2000; ++i) {
    state = state * 1664525u + 1013904223u;
    const float x = numerics::float_from_bits(state);
    if (std::isnan(x)) continue;
    const BitLayout b = bit_layout(x);
    EXPECT_EQ(format(b, "bf16").bits, numerics::fp32_to_bf16_bits(x));
    EXPECT_EQ(format(b, "fp16").bits, numerics::fp32_to_fp16_bits(x));
    EXPECT_EQ(format(b, "TF32 nearest even").decoded,
              numerics::fp32_to_tf32(x, numerics::Tf32Rounding::nearest_even));
    // Nearest rounding: the error is at most half a step of the kept bits.
    const FormatBits& bf16 = format(b, "bf16");
    if (bf16.value_class == ValueClass::kNormal && !bf16.overflowed) {
      EXPECT_LE(bf16.relative_error, 0x1p-8) << std::hex << state;
    }
  }
}

TEST(BitLayoutModel, FieldsAreSetApartByGaps) {
  const FormatBits& f = format(bit_layout(1.5f), "bf16");  // 1 + 8 + 7, then 16 dropped
  EXPECT_DOUBLE_EQ(cell_offset(f, 0), 0.0);
  EXPECT_DOUBLE_EQ(cell_offset(f, 1), 1 + kFieldGap);
  EXPECT_DOUBLE_EQ(cell_offset(f, 9), 9 + 2 * kFieldGap);
  EXPECT_DOUBLE_EQ(cell_offset(f, 16), 16 + 3 * kFieldGap);
  EXPECT_DOUBLE_EQ(row_extent(f), 32 + 3 * kFieldGap);
}

TEST(BitLayoutModel, ParsesDecimalsAndHexPatterns) {
  EXPECT_EQ(parse_value("1e-6"), 1e-6f);
  EXPECT_EQ(parse_value(" -65520 "), -65520.0f);
  EXPECT_EQ(parse_value("0x3f801000"), 1.0f + 0x1p-11f);
  EXPECT_TRUE(std::isnan(*parse_value("nan")));
  EXPECT_TRUE(std::isinf(*parse_value("1e39")));
  EXPECT_FALSE(parse_value("").has_value());
  EXPECT_FALSE(parse_value("1.5x").has_value());
  EXPECT_FALSE(parse_value("0x1g").has_value());
}

}  // namespace
}  // namespace cudalab::viewer
