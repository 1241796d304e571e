#include "model/timeline_model.hpp"

#include <gtest/gtest.h>

namespace cudalab::viewer {
namespace {

TEST(TimelineModel, PackingPutsOverlappingSpansInDifferentRows) {
  // Two at once from 0 to 2, a third starting when the first ends.
  const auto rows = pack_rows({{"a", 0, 2, ""}, {"b", 0.5, 3, ""}, {"c", 2, 4, ""}}, "slot ");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].name, "slot 0");
  ASSERT_EQ(rows[0].spans.size(), 2u);
  EXPECT_EQ(rows[0].spans[1].name, "c");  // reuses the row "a" left
  EXPECT_EQ(rows[1].spans[0].name, "b");
}

TEST(TimelineModel, PackingSortsByStart) {
  const auto rows = pack_rows({{"late", 5, 6, ""}, {"early", 0, 1, ""}}, "r");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].spans[0].name, "early");
}

TEST(TimelineModel, ExtentCoversEverySpan) {
  Timeline t;
  t.rows = {{"s0", {{"k", 2, 5, ""}}}, {"s1", {{"k", 1, 3, ""}, {"k", 4, 9, ""}}}};
  const TimeRange r = extent(t);
  EXPECT_DOUBLE_EQ(r.start, 1);
  EXPECT_DOUBLE_EQ(r.end, 9);
  EXPECT_DOUBLE_EQ(extent(Timeline{}).length(), 1);  // empty: still a usable axis
}

TEST(TimelineModel, SpansMapToPixelsWithAGapAndAMinimumWidth) {
  const TimeRange range{0, 10};
  const SpanPixels p = span_pixels({"a", 2, 5, ""}, range, 100);
  EXPECT_DOUBLE_EQ(p.x0, 20);
  EXPECT_DOUBLE_EQ(p.x1, 49);  // one pixel short of the next span at 50
  const SpanPixels tiny = span_pixels({"b", 5, 5.001, ""}, range, 100);
  EXPECT_DOUBLE_EQ(tiny.x1 - tiny.x0, 3);
}

TEST(TimelineModel, SpanUnderThePointer) {
  Timeline t;
  t.rows = {{"s0", {{"a", 0, 4, ""}, {"b", 6, 10, ""}}}};
  EXPECT_EQ(span_at(t, 0, extent(t), 100, 70), 1u);
  EXPECT_FALSE(span_at(t, 0, extent(t), 100, 50).has_value());
  EXPECT_FALSE(span_at(t, 1, extent(t), 100, 70).has_value());
}

TEST(TimelineModel, KindsGiveColours) {
  Timeline t;
  t.rows = {{"s0", {{"a", 0, 1, "kernel"}, {"b", 1, 2, "copy"}, {"c", 2, 3, "kernel"}}}};
  EXPECT_EQ(kinds(t), (std::vector<std::string>{"kernel", "copy"}));
  EXPECT_EQ(span_colour(t, t.rows[0].spans[0]), span_colour(t, t.rows[0].spans[2]));
  EXPECT_NE(span_colour(t, t.rows[0].spans[0]), span_colour(t, t.rows[0].spans[1]));
}

TEST(TimelineModel, TicksAreRoundNumbersInsideTheRange) {
  EXPECT_EQ(time_ticks({0, 10}, 5), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  const auto ticks = time_ticks({0.13, 0.91}, 8);
  ASSERT_FALSE(ticks.empty());
  EXPECT_NEAR(ticks.front(), 0.2, 1e-12);
  EXPECT_LE(ticks.back(), 0.91);
  EXPECT_LE(ticks.size(), 8u);
}

TEST(TimelineModel, DescribesASpan) {
  Timeline t;
  t.unit = "us";
  EXPECT_EQ(describe_span(t, {"block (1,0)", 1.5, 4, "block"}),
            "block (1,0): 1.500 .. 4.000 us (2.500 us)  [block]");
}

}  // namespace
}  // namespace cudalab::viewer
