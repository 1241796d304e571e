// The emulator samples the screenshot tests show: real runs with the shapes
// the timeline, error plot and tile walk expect.
#include <gtest/gtest.h>

#include "samples/emulator_samples.hpp"

namespace cudalab::viewer {
namespace {

RunOutcome run_samples(std::int64_t n) {
  const auto samples = make_emulator_samples_source();
  RunRequest request = default_request(*samples);
  request.values = {n};
  return samples->run(request);
}

TEST(EmulatorSamples, MatmulTileWalkFollowsTheTiles) {
  const RunOutcome out = run_samples(24);  // 3 x 3 tiles of 8 x 8
  ASSERT_TRUE(out.tiles.has_value()) << out.error;
  EXPECT_TRUE(out.error.empty()) << out.error;
  const TileWalk& walk = *out.tiles;
  ASSERT_EQ(walk.programs.size(), 9u);
  EXPECT_EQ(step_count(walk), 3u);
  // Block (x, y) = (2, 1) is program 5: A(1, k) and B(k, 2) at step k, C(1, 2) at the end.
  const ProgramWalk& p = walk.programs[5];
  EXPECT_EQ(p.name, "block (2,1)");
  ASSERT_EQ(p.steps.size(), 3u);
  for (std::uint32_t k = 0; k < 3; ++k) {
    EXPECT_TRUE(touches(walk, 5, k, {0, 1, k})) << "step " << k;
    EXPECT_TRUE(touches(walk, 5, k, {1, k, 2})) << "step " << k;
  }
  EXPECT_TRUE(touches(walk, 5, 2, {2, 1, 2}));
  EXPECT_FALSE(touches(walk, 5, 1, {2, 1, 2}));
}

TEST(EmulatorSamples, TimelineHasOneSpanPerBlock) {
  const RunOutcome out = run_samples(16);
  ASSERT_TRUE(out.timeline.has_value()) << out.error;
  std::size_t spans = 0;
  for (const TimelineRow& row : out.timeline->rows)
    for (const Span& s : row.spans) {
      ++spans;
      EXPECT_GE(s.end, s.start) << s.name;
      EXPECT_GE(s.start, 0.0) << s.name;
    }
  EXPECT_EQ(spans, 4u);
  EXPECT_EQ(out.timeline->unit, "ms");
}

TEST(EmulatorSamples, InOrderFp32SumsLoseMoreThanTrees) {
  const RunOutcome out = run_samples(8);
  ASSERT_TRUE(out.errors.has_value()) << out.error;
  const auto& series = out.errors->series;
  ASSERT_EQ(series.size(), 2u);
  ASSERT_EQ(series[0].points.size(), 13u);  // 2^8 .. 2^20
  EXPECT_DOUBLE_EQ(series[0].points.back().x, 1 << 20);
  // A running fp32 sum of a million numbers near 0.5 loses about 1e-4 of
  // it; a tree of 256 partial sums stays orders of magnitude closer.
  EXPECT_GT(series[0].points.back().y, 1e-5);
  EXPECT_GT(series[0].points.back().y, 10 * series[1].points.back().y);
  EXPECT_GT(series[0].points.back().y, series[0].points.front().y);
}

}  // namespace
}  // namespace cudalab::viewer
