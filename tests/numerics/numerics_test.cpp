// cudalab/numerics on the host (labels numerics, unit): hand-checked
// conversions and the tensor-core model's edge vectors. numerics_gpu_test.cu
// checks the same functions against the H200, exhaustively where it can.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <utility>

#include "cudalab/numerics.hpp"
#include "edge_vectors.hpp"

namespace {

using namespace cudalab::numerics;
using cudalab::numerics::test_vectors::edge_vectors;
using cudalab::numerics::test_vectors::operand_bits;

std::uint32_t tf32_bits(std::uint32_t fp32, Tf32Rounding rounding) {
  return float_bits(fp32_to_tf32(float_from_bits(fp32), rounding));
}

TEST(NumericsFp16, RoundsToNearestEven) {
  EXPECT_EQ(fp32_to_fp16_bits(1.0f), 0x3c00u);
  EXPECT_EQ(fp32_to_fp16_bits(-2.0f), 0xc000u);
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties go to the even 1.0;
  // 1 + 3*2^-11 is halfway between odd and even: up to 1 + 2^-9.
  EXPECT_EQ(fp32_to_fp16_bits(1.0f + std::ldexp(1.0f, -11)), 0x3c00u);
  EXPECT_EQ(fp32_to_fp16_bits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02u);
  EXPECT_EQ(fp32_to_fp16_bits(std::nextafter(1.0f + std::ldexp(1.0f, -11), 2.0f)), 0x3c01u);
}

TEST(NumericsFp16, OverflowsToInfinity) {
  EXPECT_EQ(fp32_to_fp16_bits(65504.0f), 0x7bffu);                        // the largest fp16
  EXPECT_EQ(fp32_to_fp16_bits(std::nextafter(65520.0f, 0.0f)), 0x7bffu);  // just below the tie
  EXPECT_EQ(fp32_to_fp16_bits(65520.0f), 0x7c00u);  // the tie rounds to even: inf
  EXPECT_EQ(fp32_to_fp16_bits(-1e30f), 0xfc00u);
  EXPECT_EQ(fp32_to_fp16_bits(-std::numeric_limits<float>::infinity()), 0xfc00u);
}

TEST(NumericsFp16, SubnormalsAndZeros) {
  EXPECT_EQ(fp32_to_fp16_bits(std::ldexp(1.0f, -24)), 0x0001u);  // the smallest subnormal
  EXPECT_EQ(fp32_to_fp16_bits(std::ldexp(1.0f, -25)), 0x0000u);  // half of it: tie to even 0
  EXPECT_EQ(fp32_to_fp16_bits(std::ldexp(1.5f, -25)), 0x0001u);
  EXPECT_EQ(fp32_to_fp16_bits(std::ldexp(3.0f, -25)), 0x0002u);     // 1.5 units: tie to even 2
  EXPECT_EQ(fp32_to_fp16_bits(std::ldexp(1023.0f, -24)), 0x03ffu);  // the largest subnormal
  EXPECT_EQ(fp32_to_fp16_bits(std::ldexp(1023.5f, -24)),
            0x0400u);  // rounds up to the smallest normal
  EXPECT_EQ(fp32_to_fp16_bits(-0.0f), 0x8000u);
  EXPECT_EQ(fp32_to_fp16_bits(std::numeric_limits<float>::denorm_min()), 0x0000u);
  EXPECT_EQ(float_bits(fp16_bits_to_fp32(0x0001u)), float_bits(std::ldexp(1.0f, -24)));
  EXPECT_EQ(float_bits(fp16_bits_to_fp32(0x83ffu)), float_bits(-std::ldexp(1023.0f, -24)));
  EXPECT_EQ(float_bits(fp16_bits_to_fp32(0x8000u)), 0x80000000u);
}

TEST(NumericsFp16, NanStaysQuietNan) {
  EXPECT_EQ(fp32_to_fp16_bits(std::numeric_limits<float>::quiet_NaN()), fp16_canonical_nan);
  EXPECT_EQ(fp32_to_fp16_bits(float_from_bits(0xff800001u)), fp16_canonical_nan);  // signalling in
  EXPECT_TRUE(std::isnan(fp16_bits_to_fp32(0x7c01u)));
  EXPECT_TRUE(std::isinf(fp16_bits_to_fp32(0xfc00u)));
}

TEST(NumericsFp16, EveryPatternSurvivesTheRoundTrip) {
  for (std::uint32_t h = 0; h < 0x10000u; ++h) {
    const auto half = static_cast<std::uint16_t>(h);
    const bool nan = (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0;
    if (nan) continue;
    ASSERT_EQ(fp32_to_fp16_bits(fp16_bits_to_fp32(half)), half) << std::hex << h;
  }
}

TEST(NumericsBf16, RoundsOverflowsAndKeepsSubnormals) {
  EXPECT_EQ(fp32_to_bf16_bits(1.0f), 0x3f80u);
  EXPECT_EQ(fp32_to_bf16_bits(float_from_bits(0x3f808000u)), 0x3f80u);  // tie to even
  EXPECT_EQ(fp32_to_bf16_bits(float_from_bits(0x3f818000u)), 0x3f82u);  // tie to even, up
  EXPECT_EQ(fp32_to_bf16_bits(float_from_bits(0x3f808001u)), 0x3f81u);
  EXPECT_EQ(fp32_to_bf16_bits(std::numeric_limits<float>::max()), 0x7f80u);  // rounds up to inf
  EXPECT_EQ(fp32_to_bf16_bits(float_from_bits(0x7f7f7fffu)), 0x7f7fu);
  EXPECT_EQ(fp32_to_bf16_bits(float_from_bits(0x00018000u)), 0x0002u);  // subnormal tie, up to even
  EXPECT_EQ(fp32_to_bf16_bits(-0.0f), 0x8000u);
  EXPECT_EQ(fp32_to_bf16_bits(std::numeric_limits<float>::quiet_NaN()), bf16_canonical_nan);
  EXPECT_EQ(float_bits(bf16_bits_to_fp32(0x0001u)), 0x00010000u);
  EXPECT_TRUE(std::isnan(bf16_bits_to_fp32(0xffc1u)));
}

TEST(NumericsTf32, TieCasesInEachRounding) {
  // 0x3f801000 = 1 + 2^-11, exactly halfway between TF32 1.0 and 1 + 2^-10.
  EXPECT_EQ(tf32_bits(0x3f801000u, Tf32Rounding::toward_zero), 0x3f800000u);
  EXPECT_EQ(tf32_bits(0x3f801000u, Tf32Rounding::ties_away), 0x3f802000u);
  EXPECT_EQ(tf32_bits(0x3f801000u, Tf32Rounding::nearest_even), 0x3f800000u);
  // 0x3f801800 = 1 + 1.5*2^-11: above halfway.
  EXPECT_EQ(tf32_bits(0x3f801800u, Tf32Rounding::toward_zero), 0x3f800000u);
  EXPECT_EQ(tf32_bits(0x3f801800u, Tf32Rounding::ties_away), 0x3f802000u);
  EXPECT_EQ(tf32_bits(0x3f801800u, Tf32Rounding::nearest_even), 0x3f802000u);
  // A tie with an odd kept part goes up in both nearest modes.
  EXPECT_EQ(tf32_bits(0x3f803000u, Tf32Rounding::nearest_even), 0x3f804000u);
  EXPECT_EQ(tf32_bits(0xbf803000u, Tf32Rounding::ties_away), 0xbf804000u);
  // Negative ties go away from zero too, in magnitude.
  EXPECT_EQ(tf32_bits(0xbf801000u, Tf32Rounding::ties_away), 0xbf802000u);
}

TEST(NumericsTf32, OverflowAndSpecials) {
  EXPECT_EQ(tf32_bits(0x7f7fffffu, Tf32Rounding::toward_zero), 0x7f7fe000u);
  EXPECT_EQ(tf32_bits(0x7f7fffffu, Tf32Rounding::ties_away), 0x7f800000u);
  EXPECT_EQ(tf32_bits(0x7f7fffffu, Tf32Rounding::nearest_even), 0x7f800000u);
  EXPECT_EQ(tf32_bits(0xff800000u, Tf32Rounding::nearest_even), 0xff800000u);
  // NaNs as the H200's cvt returns them: one canonical NaN from rz and rn,
  // the truncated input from rna (an infinity when the payload was all low bits).
  EXPECT_EQ(tf32_bits(0x7f800001u, Tf32Rounding::toward_zero), tf32_canonical_nan);
  EXPECT_EQ(tf32_bits(0xffffffffu, Tf32Rounding::nearest_even), tf32_canonical_nan);
  EXPECT_EQ(tf32_bits(0xffffffffu, Tf32Rounding::ties_away), 0xffffe000u);
  EXPECT_EQ(tf32_bits(0x7f800001u, Tf32Rounding::ties_away), 0x7f800000u);
}

TEST(NumericsBlockFma, EdgeVectorsFromTheModel) {
  for (const auto& edge : edge_vectors()) {
    SCOPED_TRACE(edge.name);
    const auto a = operand_bits(edge.a, edge.format);
    const auto b = operand_bits(edge.b, edge.format);
    // The inputs must be exact in the format, or the vector tests something else.
    for (std::size_t i = 0; i < edge.a.size(); ++i) {
      ASSERT_EQ(edge.a[i] * edge.b[i],
                static_cast<float>(static_cast<double>(edge.a[i]) * edge.b[i]));
    }
    const float d =
        mma_block_fma(a.data(), b.data(), static_cast<int>(a.size()), edge.c, edge.format);
    EXPECT_EQ(float_bits(d), edge.expected_bits) << std::hex << float_bits(d);
  }
}

TEST(NumericsBlockFma, SumsExactlyBeforeTheOneRounding) {
  // 2^24 + 1 - 1 in fp32 steps gives 2^24 - 1 or 2^24; the block sees all three at once.
  const std::vector<float> a{4096.0f, 1.0f, -1.0f}, b{4096.0f, 1.0f, 1.0f};
  const auto a_bits = operand_bits(a, MmaFormat::fp16), b_bits = operand_bits(b, MmaFormat::fp16);
  EXPECT_EQ(mma_block_fma(a_bits.data(), b_bits.data(), 3, 0.0f, MmaFormat::fp16), 16777216.0f);
}

TEST(NumericsBlockFma, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::uint32_t one = 0x3c00u, zero = 0x0000u, fp16_inf = 0x7c00u, fp16_nan = 0x7e00u;
  const std::uint32_t a1[] = {fp16_inf, one};
  const std::uint32_t b1[] = {one, one};
  EXPECT_EQ(mma_block_fma(a1, b1, 2, 1.0f, MmaFormat::fp16), inf);
  EXPECT_EQ(float_bits(mma_block_fma(a1, b1, 2, -inf, MmaFormat::fp16)), fp32_canonical_nan);
  const std::uint32_t b2[] = {zero, one};
  EXPECT_EQ(float_bits(mma_block_fma(a1, b2, 2, 0.0f, MmaFormat::fp16)), fp32_canonical_nan);
  const std::uint32_t a3[] = {fp16_nan, one};
  EXPECT_EQ(float_bits(mma_block_fma(a3, b1, 2, 0.0f, MmaFormat::fp16)), fp32_canonical_nan);
}

TEST(NumericsBlockFma, Tf32OperandsDropTheirLow13Bits) {
  // 1 + 2^-11 + 2^-23 is not a TF32 value: the block reads it as 1.0.
  const std::uint32_t a[] = {0x3f801001u};
  const std::uint32_t b[] = {0x3f800000u};
  EXPECT_EQ(mma_block_fma(a, b, 1, 0.0f, MmaFormat::tf32), 1.0f);
}

TEST(NumericsBlockFma, SubnormalResultsAreTruncated) {
  // 2^-14 * 2^-14 * (1 + 2^-10) ... in bf16: 2^-70 * 2^-70 = 2^-140, a subnormal fp32.
  const std::vector<float> a{std::ldexp(1.0f, -70)}, b{std::ldexp(1.5f, -70)};
  const auto a_bits = operand_bits(a, MmaFormat::bf16), b_bits = operand_bits(b, MmaFormat::bf16);
  EXPECT_EQ(float_bits(mma_block_fma(a_bits.data(), b_bits.data(), 1, 0.0f, MmaFormat::bf16)),
            float_bits(std::ldexp(1.5f, -140)));
  // 1.5 * 2^-149 is not representable: toward zero it is 2^-149.
  const std::vector<float> c{std::ldexp(1.0f, -75)}, d{std::ldexp(1.5f, -74)};
  const auto c_bits = operand_bits(c, MmaFormat::bf16), d_bits = operand_bits(d, MmaFormat::bf16);
  EXPECT_EQ(float_bits(mma_block_fma(c_bits.data(), d_bits.data(), 1, 0.0f, MmaFormat::bf16)), 1u);
}

TEST(NumericsBlockFma, ChainedBlocksRoundBetweenBlocks) {
  // c = 1 and two products of 2^-24, at k = 0 and k = 8. One block of 16
  // sums 1 + 2^-23 exactly; two chained blocks of 8 each add 2^-24 to 1 and
  // round toward zero back to 1.
  std::vector<float> a(16, 0.0f), b(16, 0.0f);
  a[0] = a[8] = b[0] = b[8] = std::ldexp(1.0f, -12);
  const auto a_bits = operand_bits(a, MmaFormat::fp16), b_bits = operand_bits(b, MmaFormat::fp16);
  EXPECT_EQ(float_bits(mma_dot(a_bits.data(), b_bits.data(), 16, 1.0f, MmaFormat::fp16, 16)),
            0x3f800001u);
  EXPECT_EQ(float_bits(mma_dot(a_bits.data(), b_bits.data(), 16, 1.0f, MmaFormat::fp16, 8)),
            0x3f800000u);
}

TEST(NumericsMmaLayout, EveryElementHasExactlyOneLane) {
  auto check = [](auto element, int per_lane, int rows, int cols) {
    std::set<std::pair<int, int>> seen;
    for (int lane = 0; lane < 32; ++lane) {
      for (int i = 0; i < per_lane; ++i) {
        const MatrixCoord at = element(lane, i);
        ASSERT_GE(at.row, 0);
        ASSERT_LT(at.row, rows);
        ASSERT_GE(at.col, 0);
        ASSERT_LT(at.col, cols);
        seen.insert({at.row, at.col});
      }
    }
    EXPECT_EQ(static_cast<int>(seen.size()), rows * cols);
  };
  check(m16n8k16_a_element, 8, 16, 16);
  check(m16n8k16_b_element, 4, 16, 8);
  check(m16n8k8_tf32_a_element, 4, 16, 8);
  check(m16n8k8_tf32_b_element, 2, 8, 8);
  check(m16n8_c_element, 4, 16, 8);
  // Spot checks from the PTX ISA's figures: lane 5 is group 1, thread 1.
  EXPECT_EQ(m16n8k16_a_element(5, 0).row, 1);
  EXPECT_EQ(m16n8k16_a_element(5, 0).col, 2);
  EXPECT_EQ(m16n8k16_a_element(5, 7).row, 9);
  EXPECT_EQ(m16n8k16_a_element(5, 7).col, 11);
  EXPECT_EQ(m16n8k8_tf32_a_element(5, 3).row, 9);
  EXPECT_EQ(m16n8k8_tf32_a_element(5, 3).col, 5);
}

}  // namespace
