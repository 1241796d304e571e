#include "model/traffic_model.hpp"

#include <gtest/gtest.h>

namespace cudalab::viewer {
namespace {

// 3 ranks: a ring (each to the next) but rank 2 also sends to rank 0 twice.
const std::vector<std::uint64_t> kBytes = {
    0,   800, 0,    // rank 0 -> 1
    0,   0,   800,  // rank 1 -> 2
    800, 0,   0,    // rank 2 -> 0
};

TEST(TrafficModel, OneBarPerRankSplitByPeer) {
  const TrafficChart chart = traffic_chart(3, kBytes, 800.0, "ideal", "t");
  ASSERT_EQ(chart.bars.size(), 3u);
  EXPECT_EQ(chart.bars[1].label, "rank 1");
  EXPECT_EQ(chart.bars[1].bytes, 800u);
  ASSERT_EQ(chart.bars[2].parts.size(), 1u);
  EXPECT_EQ(chart.bars[2].parts[0].to, 0);
  EXPECT_DOUBLE_EQ(chart.max_value, 800);
}

TEST(TrafficModel, TheAxisHoldsTheIdealAndTheLargestBar) {
  std::vector<std::uint64_t> gather = {0, 0, 0, 1200, 0, 0, 1200, 0, 0};  // all to rank 0
  gather[1] = 2400, gather[2] = 2400;  // then rank 0 sends everything back
  const TrafficChart chart = traffic_chart(3, gather, 1600.0, "ideal", "t");
  EXPECT_EQ(chart.bars[0].bytes, 4800u);
  EXPECT_EQ(chart.bars[0].parts.size(), 2u);
  EXPECT_DOUBLE_EQ(chart.max_value, 4800);
  EXPECT_DOUBLE_EQ(traffic_chart(3, kBytes, 1600.0, "ideal", "t").max_value, 1600);
  EXPECT_NEAR(bar_pixels(chart, 4800, 105), 100, 1e-9);  // 5% margin past the largest
  EXPECT_DOUBLE_EQ(bar_pixels(chart, 0, 105), 0);
}

TEST(TrafficModel, TextsSayBytesTheFractionOfTheIdealAndThePeers) {
  const TrafficChart chart = traffic_chart(3, kBytes, 1600.0, "ideal", "t");
  EXPECT_EQ(bar_text(chart, chart.bars[0]), "800 B  0.50 of ideal  (to 1: 800 B)");
  EXPECT_EQ(byte_text(4004), "4,004 B");
  EXPECT_EQ(byte_text(3 * 1024 * 1024), "3072.0 KiB");
  EXPECT_EQ(byte_text(64.0 * 1024 * 1024), "64.0 MiB");
  EXPECT_NE(peer_colour(0), peer_colour(1));
}

TEST(TrafficModel, NoRanksNoBars) {
  const TrafficChart chart = traffic_chart(0, {}, std::nullopt, "", "");
  EXPECT_TRUE(chart.bars.empty());
  EXPECT_DOUBLE_EQ(chart.max_value, 0);
}

}  // namespace
}  // namespace cudalab::viewer
