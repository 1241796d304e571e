#include "model/coalescing_model.hpp"

#include <gtest/gtest.h>

#include "known_runs.hpp"

namespace cudalab::viewer {
namespace {

WarpRequest strided(std::uint64_t base, std::uint64_t stride, std::uint32_t bytes = 4,
                    std::uint32_t mask = 0xffffffffu) {
  WarpRequest r;
  r.bytes_per_lane = bytes;
  r.active_mask = mask;
  for (int lane = 0; lane < kWarpSize; ++lane) r.address[lane] = base + lane * stride;
  return r;
}

TEST(CoalescingModel, ConsecutiveFloatsTouchFourSectors) {
  const RequestStats s = analyse(strided(0x1000, 4));
  EXPECT_EQ(s.sectors, 4);
  EXPECT_EQ(s.lines, 1);
  EXPECT_EQ(s.ideal_sectors, 4);
  EXPECT_DOUBLE_EQ(s.efficiency(), 1.0);
}

TEST(CoalescingModel, MisalignedWarpTouchesOneMoreSector) {
  const RequestStats s = analyse(strided(0x1000 + 8, 4));
  EXPECT_EQ(s.sectors, 5);
  EXPECT_EQ(s.lines, 2);
  EXPECT_DOUBLE_EQ(s.efficiency(), 128.0 / 160.0);
}

TEST(CoalescingModel, StridedFloatsTouchOneSectorPerLane) {
  const RequestStats s = analyse(strided(0, 400));
  EXPECT_EQ(s.sectors, 32);
  EXPECT_EQ(s.lines, 32);
  EXPECT_EQ(s.ideal_sectors, 4);
  EXPECT_DOUBLE_EQ(s.efficiency(), 0.125);
}

TEST(CoalescingModel, BroadcastReadCountsItsBytesOnce) {
  const RequestStats s = analyse(strided(64, 0));  // every lane reads b[k]
  EXPECT_EQ(s.requested_bytes, 4u);
  EXPECT_EQ(s.sectors, 1);
  EXPECT_EQ(s.ideal_sectors, 1);
}

TEST(CoalescingModel, InactiveLanesAreIgnored) {
  const RequestStats s = analyse(strided(0, 400, 4, 0x3));
  EXPECT_EQ(s.active_lanes, 2);
  EXPECT_EQ(s.sectors, 2);
}

TEST(CoalescingModel, SixteenByteLanesStraddlingLinesAreSplit) {
  const auto picture = memory_picture(strided(120, 16, 16, 0x1));  // bytes 120..135
  ASSERT_EQ(picture.size(), 2u);
  EXPECT_EQ(picture[0].lanes[0].bytes, 8u);
  EXPECT_TRUE(picture[0].sector_touched[3]);
  EXPECT_TRUE(picture[1].sector_touched[0]);
  EXPECT_FALSE(picture[1].sector_touched[1]);
  EXPECT_EQ(picture[1].gap_before, 0u);
}

TEST(CoalescingModel, PictureShowsGapsBetweenLines) {
  const auto picture = memory_picture(strided(0, 400));
  ASSERT_EQ(picture.size(), 32u);
  EXPECT_EQ(picture[1].address, 384u);
  EXPECT_EQ(picture[1].gap_before, 256u);
}

TEST(CoalescingModel, ColumnWalkStoresVersusRowWalkStores) {
  const KernelRun column_walk = testing::column_major(64, 100, 256);
  const KernelRun coalesced = testing::row_major(64, 100, 256);
  const std::uint32_t store = 2;
  const SiteSummary bad = summarise_site(column_walk, store);
  const SiteSummary good = summarise_site(coalesced, store);
  EXPECT_EQ(bad.requests, good.requests);
  EXPECT_GT(bad.mean_sectors, 20.0);
  EXPECT_LE(good.mean_sectors, 5.0);
  EXPECT_GT(good.efficiency, 0.8);
  std::uint64_t total = 0;
  for (std::uint64_t n : good.histogram) total += n;
  EXPECT_EQ(total, good.requests);
  EXPECT_TRUE(find_request(coalesced, store, 3, 2).has_value());
  EXPECT_FALSE(find_request(coalesced, store, 99, 0).has_value());
}

}  // namespace
}  // namespace cudalab::viewer
