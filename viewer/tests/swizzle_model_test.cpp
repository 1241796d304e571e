#include "model/swizzle_model.hpp"

#include <gtest/gtest.h>

#include <set>

#include "cudalab/tma_swizzle.hpp"

namespace cudalab::viewer {
namespace {

SwizzleLayout fp16_64x64(unsigned swizzle) { return swizzle_layout({64, 64, 2, swizzle, 0}); }

// 128-byte rows without a swizzle: every row's 16-byte column c sits in bank
// group c, so the 8 rows of a read all hit one group (8 wavefronts).
TEST(SwizzleModel, WithoutASwizzleEightRowsOfAColumnHitOneBankGroup) {
  const SwizzleLayout layout = fp16_64x64(0);
  ASSERT_EQ(layout.reads.size(), 8u * 8u);  // 8 row groups x 8 columns of 16 bytes
  for (const ColumnRead& read : layout.reads) {
    EXPECT_EQ(read.bank_groups, 1u);
    EXPECT_EQ(read.ways, 8u);
  }
  EXPECT_EQ(layout.worst_ways, 8u);
  for (unsigned r = 0; r < 64; ++r) EXPECT_EQ(layout.bank(r, 0), 0u);  // column 0: bank 0
}

// The 128-byte swizzle XORs the chunk with the row (bits 7-9): the 8 rows
// land in 8 different groups, one wavefront each.
TEST(SwizzleModel, The128ByteSwizzleSpreadsEachEightRowReadOverEightBankGroups) {
  const SwizzleLayout layout = fp16_64x64(128);
  ASSERT_EQ(layout.reads.size(), 64u);
  for (const ColumnRead& read : layout.reads) {
    EXPECT_EQ(read.bank_groups, 8u) << "rows " << read.first_row << ", column " << read.column;
    EXPECT_EQ(read.ways, 1u);
  }
  EXPECT_EQ(layout.worst_ways, 1u);
  EXPECT_DOUBLE_EQ(layout.mean_ways, 1.0);
  EXPECT_TRUE(layout.not_on_a_gpu.empty());
  EXPECT_NE(describe_reads(layout).find("no bank conflict"), std::string::npos);
}

// Narrower rows put 4 or 2 rows in a 128-byte line: without a swizzle a
// read has 2- or 4-way conflicts, and the swizzle as wide as the row (the
// widest a GPU allows for it) removes them. A 32-byte swizzle of 128-byte
// rows (which a GPU refuses) spreads a read over only 2 groups.
TEST(SwizzleModel, TheSwizzleAsWideAsTheRowRemovesTheConflicts) {
  EXPECT_EQ(swizzle_layout({64, 16, 2, 0, 0}).worst_ways, 2u);  // 32-byte rows
  EXPECT_EQ(swizzle_layout({64, 16, 2, 32, 0}).worst_ways, 1u);
  EXPECT_EQ(swizzle_layout({64, 32, 2, 0, 0}).worst_ways, 4u);  // 64-byte rows
  EXPECT_EQ(swizzle_layout({64, 32, 2, 64, 0}).worst_ways, 1u);
  EXPECT_EQ(swizzle_layout({64, 32, 4, 128, 0}).worst_ways, 1u);
  const SwizzleLayout narrow = swizzle_layout({64, 64, 2, 32, 0});
  EXPECT_EQ(narrow.worst_ways, 4u);
  EXPECT_FALSE(narrow.not_on_a_gpu.empty());
}

// The banks are the emulator's layout: tma_swizzled_address, not a copy of it.
TEST(SwizzleModel, EachElementsBankIsWhereTheEmulatorPutsItsFirstByte) {
  const SwizzleBox box{16, 32, 4, 128, 1024};
  const SwizzleLayout layout = swizzle_layout(box);
  for (unsigned r = 0; r < box.rows; ++r)
    for (unsigned c = 0; c < box.cols; ++c) {
      const std::uint32_t at = tma_swizzled_address(1024 + (r * box.cols + c) * 4, 128);
      EXPECT_EQ(layout.bank(r, c), at / 4 % 32) << r << ", " << c;
    }
  EXPECT_NE(describe_element(layout, 1, 0).find("bank 4"), std::string::npos)
      << describe_element(layout, 1, 0);
}

// Rows narrower than the span are padded to it before the swizzle, as an
// H100 lays them out (2026-12-07) and the emulator places them.
TEST(SwizzleModel, RowsNarrowerThanTheSpanArePaddedToIt) {
  const SwizzleBox box{16, 16, 4, 128, 0};  // 64-byte rows
  const SwizzleLayout layout = swizzle_layout(box);
  for (unsigned r = 0; r < box.rows; ++r)
    for (unsigned c = 0; c < box.cols; ++c) {
      const std::uint32_t at = tma_swizzled_address(r * 128 + c * 4, 128);
      EXPECT_EQ(layout.bank(r, c), at / 4 % 32) << r << ", " << c;
    }
}

TEST(SwizzleModel, ABoxAGpuRefusesIsSaidInWords) {
  const SwizzleLayout layout = swizzle_layout({64, 64, 4, 128, 0});
  EXPECT_NE(layout.not_on_a_gpu.find("256 bytes, more than the 128-byte swizzle span"),
            std::string::npos)
      << layout.not_on_a_gpu;
  EXPECT_THROW(swizzle_layout({64, 64, 3, 128, 0}), std::invalid_argument);
  EXPECT_THROW(swizzle_layout({64, 64, 2, 96, 0}), std::invalid_argument);
  EXPECT_TRUE(swizzle_layout({8, 4, 2, 0, 0}).reads.empty());  // 8-byte rows: no 16-byte read
}

TEST(SwizzleModel, BanksHaveColoursOfTheirOwn) {
  std::set<std::tuple<int, int, int>> colours;
  for (unsigned b = 0; b < kBanks; ++b) {
    const Rgba c = bank_colour(b);
    colours.insert({c.r, c.g, c.b});
  }
  EXPECT_EQ(colours.size(), kBanks);
}

}  // namespace
}  // namespace cudalab::viewer
