// The Hopper page's run on the emulator: the TMA box it recorded and the
// pipeline drawn from its barrier and copy events.
#include <gtest/gtest.h>

#include <algorithm>

#include "model/lab_source.hpp"
#include "model/pipeline_model.hpp"

namespace cudalab::viewer {
namespace {

std::unique_ptr<LabSource> hopper_page() {
  for (auto& lab : available_labs())
    if (lab->title().rfind("hopper", 0) == 0) return std::move(lab);
  return nullptr;
}

std::size_t spans_of_kind(const Timeline& t, const std::string& kind) {
  std::size_t n = 0;
  for (const TimelineRow& row : t.rows)
    n += std::count_if(row.spans.begin(), row.spans.end(),
                       [&](const Span& s) { return s.kind == kind; });
  return n;
}

const TimelineRow* row_named(const Timeline& t, const std::string& prefix) {
  for (const TimelineRow& row : t.rows)
    if (row.name.rfind(prefix, 0) == 0) return &row;
  return nullptr;
}

TEST(HopperPage, TheRecordedBoxIsTheTmaLoadsAndItsReadsAreConflictFree) {
  const auto lab = hopper_page();
  ASSERT_NE(lab, nullptr);
  const RunOutcome out = lab->run(default_request(*lab));  // 64 x 64 fp16, 128-B swizzle
  EXPECT_EQ(out.error, "");
  ASSERT_TRUE(out.swizzle);
  EXPECT_EQ(out.swizzle->box.rows, 64u);
  EXPECT_EQ(out.swizzle->box.cols, 64u);
  EXPECT_EQ(out.swizzle->box.element_bytes, 2u);
  EXPECT_EQ(out.swizzle->box.swizzle_bytes, 128u);
  EXPECT_EQ(out.swizzle->box.shared_offset % 1024, 0u);
  EXPECT_EQ(out.swizzle->worst_ways, 1u);
}

// 4 tiles through 2 stages: a copy in flight per tile on its stage's full
// barrier, each completing a phase; the consumers wait on full, the
// producer (warp 0) on empty for tiles 2 and 3.
TEST(HopperPage, ThePipelineShowsCopiesPhasesWaitsAndArrivals) {
  const auto lab = hopper_page();
  ASSERT_NE(lab, nullptr);
  const RunOutcome out = lab->run(default_request(*lab));
  ASSERT_TRUE(out.pipeline);
  const Timeline& t = *out.pipeline;
  EXPECT_EQ(spans_of_kind(t, kCopyInFlight), 4u);
  const TimelineRow* full0 = row_named(t, "full[0]");
  ASSERT_NE(full0, nullptr);
  EXPECT_EQ(full0->name, "full[0] (count 1)");
  const auto copies = std::count_if(full0->spans.begin(), full0->spans.end(),
                                    [](const Span& s) { return s.kind == kCopyInFlight; });
  EXPECT_EQ(copies, 2);  // tiles 0 and 2
  // full: a phase per tile; empty: one per tile consumed.
  EXPECT_EQ(spans_of_kind(t, kPhaseDone), 8u);
  ASSERT_NE(row_named(t, "warp 0"), nullptr);
  ASSERT_NE(row_named(t, "warp 2"), nullptr);
  EXPECT_GT(spans_of_kind(t, kWaiting), 0u);
  EXPECT_GT(spans_of_kind(t, kArrivals), 0u);
  // Every span says what it is.
  for (const TimelineRow& row : t.rows)
    for (const Span& s : row.spans) {
      EXPECT_FALSE(s.name.empty());
      EXPECT_LT(s.start, s.end);
    }
  const Span& copy = full0->spans.front();
  EXPECT_NE(copy.name.find("8192 bytes"), std::string::npos) << copy.name;
}

// A box the tensor map refuses (fp32 rows of 256 bytes under a 128-byte
// swizzle) is an error, and the swizzle view still shows the controls' box.
TEST(HopperPage, ABoxTheTensorMapRefusesKeepsTheControlsLayout) {
  const auto lab = hopper_page();
  ASSERT_NE(lab, nullptr);
  RunRequest request = default_request(*lab);
  request.values[2] = 4;
  const RunOutcome out = lab->run(request);
  EXPECT_NE(out.error, "");
  ASSERT_TRUE(out.swizzle);
  EXPECT_FALSE(out.swizzle->not_on_a_gpu.empty());
  EXPECT_FALSE(out.pipeline);
}

}  // namespace
}  // namespace cudalab::viewer
