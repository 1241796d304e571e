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

namespace cudalab::viewer {
namespace {

// Lab 03's producer/consumer without the wait, as the emulator reports it:
// the producer (row 0) and the consumer (row 1) race; a second consumer
// waited for the producer (an arrow), and one span has no id.
Timeline streams_with_a_race() {
  const std::string race = "stream_race: sum_kernel reads what fill_kernel writes";
  Timeline t;
  t.rows = {{"default", {{"fill_kernel", 0, 4, "kernel", 0, {}, race}}},
            {"stream 1",
             {{"sum_kernel", 1, 2, "kernel", 1, {}, race},
              {"copy out", 4, 6, "copy", 2, {0}, ""},
              {"no id", 7, 8, "memset"}}}};
  return t;
}

const TimelineFrame kFrame{100, 50, 80, 20, {0, 8}};  // 10 px per ms, rows 20 px apart

TEST(TimelineModel, SpanBoxesFollowTheFrame) {
  const Timeline t = streams_with_a_race();
  const Box box = span_box(t, {1, 1}, kFrame);  // copy out: 4 .. 6 ms on row 1
  EXPECT_DOUBLE_EQ(box.x0, 140);
  EXPECT_DOUBLE_EQ(box.x1, 159);  // span_pixels: one pixel short of its end
  EXPECT_DOUBLE_EQ(box.y0, 73);   // 50 + 20 + 15% of 20
  EXPECT_DOUBLE_EQ(box.y1, 87);
}

TEST(TimelineModel, AnArrowRunsFromTheEndOfTheSpanWaitedForToTheStartOfTheWaiter) {
  const Timeline t = streams_with_a_race();
  const auto arrows = dependency_arrows(t, kFrame);
  ASSERT_EQ(arrows.size(), 1u);
  EXPECT_EQ(arrows[0].from, (SpanRef{0, 0}));
  EXPECT_EQ(arrows[0].to, (SpanRef{1, 1}));
  EXPECT_DOUBLE_EQ(arrows[0].tail.x, 139);  // fill_kernel's right edge (4 ms, less a pixel)
  EXPECT_DOUBLE_EQ(arrows[0].tail.y, 60);   // the middle of row 0
  EXPECT_DOUBLE_EQ(arrows[0].head.x, 140);  // copy out's left edge
  EXPECT_DOUBLE_EQ(arrows[0].head.y, 80);   // the middle of row 1
}

TEST(TimelineModel, ADanglingDependencyDrawsNoArrow) {
  Timeline t = streams_with_a_race();
  t.rows[1].spans[1].after = {0, 42};
  EXPECT_EQ(dependency_arrows(t, kFrame).size(), 1u);
}

TEST(TimelineModel, ArrowheadsPointAlongTheArrow) {
  const Arrow right{{}, {}, {0, 0}, {10, 0}};
  const auto [a, b] = arrowhead(right, 4);
  EXPECT_DOUBLE_EQ(a.x, 6);
  EXPECT_DOUBLE_EQ(b.x, 6);
  EXPECT_DOUBLE_EQ(std::abs(a.y - b.y), 4);
  const Arrow down{{}, {}, {5, 0}, {5, 10}};
  const auto [c, d] = arrowhead(down, 4);
  EXPECT_DOUBLE_EQ(c.y, 6);
  EXPECT_DOUBLE_EQ(d.y, 6);
}

TEST(TimelineModel, RacesAreRedAndJoinedToTheirPartner) {
  const Timeline t = streams_with_a_race();
  EXPECT_EQ(span_colour(t, t.rows[0].spans[0]), kRaceColour);
  EXPECT_EQ(span_colour(t, t.rows[1].spans[0]), kRaceColour);
  EXPECT_NE(span_colour(t, t.rows[1].spans[1]), kRaceColour);
  EXPECT_EQ(race_partner(t, {0, 0}), (SpanRef{1, 0}));
  EXPECT_EQ(race_partner(t, {1, 0}), (SpanRef{0, 0}));
  EXPECT_FALSE(race_partner(t, {1, 1}).has_value());
  const auto links = race_links(t, kFrame);
  ASSERT_EQ(links.size(), 1u);  // one line per race, not one per span
  EXPECT_EQ(links[0].first, (SpanRef{0, 0}));
  EXPECT_EQ(links[0].second, (SpanRef{1, 0}));
  EXPECT_DOUBLE_EQ(links[0].from.x, span_box(t, {0, 0}, kFrame).centre().x);
  EXPECT_DOUBLE_EQ(links[0].to.y, 80);
}

TEST(TimelineModel, TwoRacesWithDifferentTextsAreTwoLinks) {
  Timeline t = streams_with_a_race();
  t.rows[1].spans[1].race = "another";
  t.rows[1].spans[2].race = "another";
  const auto links = race_links(t, kFrame);
  ASSERT_EQ(links.size(), 2u);
  EXPECT_EQ(links[1].first, (SpanRef{1, 1}));
  EXPECT_EQ(links[1].second, (SpanRef{1, 2}));
}

TEST(TimelineModel, TheEmulatorsKindsHaveFixedDistinctColoursNoneOfThemRed) {
  const std::vector<std::string> fixed = {"kernel",     "copy", "memset",     "host_function",
                                          "allocation", "free", "collective", "wait"};
  const Timeline empty;
  for (std::size_t i = 0; i < fixed.size(); ++i) {
    EXPECT_NE(kind_colour(empty, fixed[i]), kRaceColour) << fixed[i];
    for (std::size_t j = 0; j < i; ++j)
      EXPECT_NE(kind_colour(empty, fixed[i]), kind_colour(empty, fixed[j]))
          << fixed[i] << " and " << fixed[j];
  }
  // Independent of which kinds the timeline holds, so every timeline agrees.
  EXPECT_EQ(kind_colour(streams_with_a_race(), "copy"), kind_colour(empty, "copy"));
}

TEST(TimelineModel, ARaceTooltipNamesTheReportAndTheOtherSpan) {
  const Timeline t = streams_with_a_race();
  const std::string text = describe_span(t, t.rows[1].spans[0]);
  EXPECT_NE(text.find("stream_race: sum_kernel reads what fill_kernel writes"), std::string::npos)
      << text;
  EXPECT_NE(text.find("with: fill_kernel on default"), std::string::npos) << text;
  EXPECT_EQ(describe_span(t, t.rows[1].spans[1]).find("race"), std::string::npos);
}

}  // namespace
}  // namespace cudalab::viewer
