// Lab 03 in the viewer: each version runs the lab's scenarios on the
// emulator and gives a timeline of stream rows, grouped by scenario, with
// the emulator's span ids and dependencies; the schedule parameter reaches
// the emulator. The lab's exercises are graded elsewhere (tests/03_streams);
// here only the plumbing is checked, with whichever code the build grades.
#include <gtest/gtest.h>

#include <set>

#include "cudalab/emu/recorder.hpp"
#include "model/lab_source.hpp"
#include "model/ui_state.hpp"

namespace cudalab::viewer {
namespace {

std::unique_ptr<LabSource> lab03() {
  for (auto& lab : available_labs())
    if (lab->title() == "03 streams") return std::move(lab);
  return nullptr;
}

RunOutcome run_version(const LabSource& lab, std::size_t version, std::int64_t schedule = 0) {
  RunRequest r = default_request(lab);
  r.version = version;
  r.values[*parameter_index(lab, "schedule")] = schedule;
  return lab.run(r);
}

// The row groups ("blocking", "2 streams") in order of first appearance.
std::vector<std::string> groups(const Timeline& t) {
  std::vector<std::string> out;
  for (const TimelineRow& row : t.rows) {
    const std::string group = row.name.substr(0, row.name.find(':'));
    if (out.empty() || out.back() != group) out.push_back(group);
  }
  return out;
}

void expect_unique_ids_and_arrows_that_land(const Timeline& t) {
  std::set<int> ids;
  for (const TimelineRow& row : t.rows)
    for (const Span& span : row.spans)
      if (span.id >= 0) {
        EXPECT_TRUE(ids.insert(span.id).second) << "id " << span.id << " twice";
      }
  for (const TimelineRow& row : t.rows)
    for (const Span& span : row.spans)
      for (int id : span.after) EXPECT_TRUE(ids.count(id)) << span.name << " after " << id;
}

TEST(Lab03View, IsListedWithTheTimelineAndAScheduleParameter) {
  const auto lab = lab03();
  ASSERT_NE(lab, nullptr);
  EXPECT_TRUE(shows(*lab, View::kTimeline));
  EXPECT_FALSE(lab->has_launch_config());
  EXPECT_TRUE(parameter_index(*lab, "schedule").has_value());
  EXPECT_EQ(lab->versions().size(), 3u);
}

TEST(Lab03View, ThreeSpinsGiveOneGroupOfStreamRowsPerStreamKind) {
  const auto lab = lab03();
  ASSERT_NE(lab, nullptr);
  const RunOutcome out = run_version(*lab, 0);
  ASSERT_TRUE(out.timeline.has_value()) << out.error;
  EXPECT_EQ(groups(*out.timeline),
            (std::vector<std::string>{"blocking", "non_blocking", "per_thread"}));
  std::size_t kernels = 0;
  for (const TimelineRow& row : out.timeline->rows)
    for (const Span& span : row.spans) kernels += span.kind == "kernel";
  EXPECT_GE(kernels, 9u) << "three spins for each of three kinds";
  expect_unique_ids_and_arrows_that_land(*out.timeline);
}

TEST(Lab03View, ThePipelineRunsOverOneTwoFourAndEightStreams) {
  const auto lab = lab03();
  ASSERT_NE(lab, nullptr);
  const RunOutcome out = run_version(*lab, 2);
  // The skeleton's pipeline queues nothing yet, and the timeline says so.
  if (out.unfinished.count(View::kTimeline)) GTEST_SKIP() << out.unfinished.at(View::kTimeline);
  ASSERT_TRUE(out.timeline.has_value()) << out.error;
  EXPECT_EQ(groups(*out.timeline),
            (std::vector<std::string>{"1 stream", "2 streams", "4 streams", "8 streams"}));
  expect_unique_ids_and_arrows_that_land(*out.timeline);
}

TEST(Lab03View, ProducerConsumerRunsUnderTheScheduleAskedFor) {
  const auto lab = lab03();
  ASSERT_NE(lab, nullptr);
  const std::string schedule_before = emu::options().schedule;
  const bool reference = lab->code_origin().find("reference") != std::string::npos;
  for (std::int64_t schedule : {0, -1, 7919}) {
    SCOPED_TRACE("schedule " + std::to_string(schedule));
    const RunOutcome out = run_version(*lab, 1, schedule);
    ASSERT_TRUE(out.timeline.has_value()) << out.error;
    const std::string named = schedule == 0 ? "adversarial" : schedule == -1 ? "fifo" : "7919";
    EXPECT_NE(out.timeline->title.find("schedule " + named), std::string::npos)
        << out.timeline->title;
    std::size_t spans = 0;
    for (const TimelineRow& row : out.timeline->rows) spans += row.spans.size();
    EXPECT_GE(spans, 3u) << "producer, consumer and the independent work";
    expect_unique_ids_and_arrows_that_land(*out.timeline);
    if (!reference) continue;  // the student's code may still race: that is what it shows
    // The reference waits on an event: the consumer has an arrow, nothing is red.
    bool arrow = false, race = false;
    for (const TimelineRow& row : out.timeline->rows)
      for (const Span& span : row.spans) arrow |= !span.after.empty(), race |= !span.race.empty();
    EXPECT_TRUE(arrow) << "the consumer's event wait is not drawn";
    EXPECT_FALSE(race) << out.error;
    EXPECT_EQ(out.error, "");
  }
  EXPECT_EQ(emu::options().schedule, schedule_before) << "the run's schedule stays in the run";
}

}  // namespace
}  // namespace cudalab::viewer
