// Lab 04 in the viewer: messages to the ring's timeline (a synthetic 3-rank
// ring, then the lab's code on simulated ranks through the viewer's lab
// source) and the traffic chart of a run. The lab's exercises are graded
// elsewhere (tests/04_nccl); here the views are checked, with whichever code
// the build grades.
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "../ring_timeline.hpp"
#include "model/lab_source.hpp"

namespace cudalab::viewer {
namespace {

using lab04::chunk_of;
using lab04::Message;
using lab04::message_timeline;
using lab04::MessageLayout;

std::unique_ptr<LabSource> lab04_source() {
  for (auto& lab : available_labs())
    if (lab->title() == "04 nccl") return std::move(lab);
  return nullptr;
}

// The runs below check the reference's messages; a student build runs
// labs/, whose ring may not be written yet (tests/04_nccl grades it).
bool runs_the_reference(const LabSource& lab) {
  return lab.code_origin().find("solutions/") != std::string::npos;
}

TEST(Lab04View, ChunkOfAnOffsetIsTheRingsSplit) {
  // 10 elements on 3 ranks: [0, 3), [3, 6), [6, 10).
  EXPECT_EQ(chunk_of(0, 10, 3), 0u);
  EXPECT_EQ(chunk_of(2, 10, 3), 0u);
  EXPECT_EQ(chunk_of(3, 10, 3), 1u);
  EXPECT_EQ(chunk_of(6, 10, 3), 2u);
  EXPECT_EQ(chunk_of(9, 10, 3), 2u);
  EXPECT_EQ(chunk_of(-1, 10, 3), std::nullopt);
  // Fewer elements than ranks: chunks 0 and 2 of 4 are empty.
  EXPECT_EQ(chunk_of(0, 2, 4), 1u);
  EXPECT_EQ(chunk_of(1, 2, 4), 3u);
}

// The messages of a ring all-reduce of 10 floats on 3 ranks, as the harness
// records them: reduce-scatter step s, rank r sends chunk (r - s) mod 3 into
// rank r + 1's scratch; all-gather step s (after the n - 1 = 2 steps of the
// reduce-scatter) sends chunk (r + 1 - s) mod 3 into the same chunk.
std::vector<Message> three_rank_ring() {
  const std::size_t begin[] = {0, 3, 6, 10};
  std::vector<Message> messages;
  for (int step = 0; step < 4; ++step)
    for (int r = 0; r < 3; ++r) {
      const bool gather = step >= 2;
      const int chunk = ((gather ? r + 1 - (step - 2) : r - step) % 3 + 3) % 3;
      const auto at = static_cast<std::int64_t>(begin[chunk]);
      messages.push_back(
          {r, (r + 1) % 3, step, at, gather ? at : -1, begin[chunk + 1] - begin[chunk]});
    }
  return messages;
}

TEST(Lab04View, ARingsMessagesBecomeOneRowPerRankOneBoxPerStep) {
  const Timeline t = message_timeline(three_rank_ring(), MessageLayout{3, 10, false, true}, "ring");
  EXPECT_EQ(t.unit, "step");
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.rows[2].name, "rank 2");
  for (const TimelineRow& row : t.rows) {
    ASSERT_EQ(row.spans.size(), 4u) << row.name << ": 2(n-1) steps";
    for (std::size_t s = 0; s < 4; ++s) {
      EXPECT_DOUBLE_EQ(row.spans[s].start, static_cast<double>(s));
      EXPECT_LT(row.spans[s].end, s + 1.0) << "a gap before the next step, for the arrows";
      EXPECT_EQ(row.spans[s].kind, s < 2 ? lab04::kReduceScatterKind : lab04::kAllGatherKind);
    }
  }
  // Rank 0 sends chunks 0, 2 (reduce-scatter), then 1, 0 (all-gather), all to rank 1.
  EXPECT_EQ(t.rows[0].spans[0].label, "c0 > r1");
  EXPECT_EQ(t.rows[0].spans[1].label, "c2 > r1");
  EXPECT_EQ(t.rows[0].spans[2].label, "c1 > r1");
  EXPECT_EQ(t.rows[0].spans[3].label, "c0 > r1");
  EXPECT_EQ(t.rows[2].spans[0].label, "c2 > r0");  // the ring closes
  EXPECT_NE(t.rows[1].spans[0].name.find("elements 3..5"), std::string::npos)
      << t.rows[1].spans[0].name;
  EXPECT_NE(t.rows[1].spans[0].name.find("into a scratch buffer"), std::string::npos);
  // The two phases differ in colour.
  EXPECT_NE(kind_colour(t, lab04::kReduceScatterKind), kind_colour(t, lab04::kAllGatherKind));
}

TEST(Lab04View, EachSendPointsBackToTheMessageThatBroughtItsChunk) {
  const Timeline t = message_timeline(three_rank_ring(), MessageLayout{3, 10, false, true}, "ring");
  // Rank 1's step 1 forwards chunk 0, which rank 0 sent it at step 0.
  const Span& forwarded = t.rows[1].spans[1];
  ASSERT_EQ(forwarded.after.size(), 1u);
  const auto from = span_with_id(t, forwarded.after[0]);
  ASSERT_TRUE(from.has_value());
  EXPECT_EQ(from->row, 0u);
  EXPECT_EQ(from->index, 0u);
  EXPECT_TRUE(t.rows[1].spans[0].after.empty());  // step 0 forwards nothing
  const TimelineFrame frame{0, 0, 800, 30, extent(t)};
  EXPECT_EQ(dependency_arrows(t, frame).size(), 9u);  // steps 1..3 of 3 ranks
  // Not a ring: no phases and no arrows.
  const Timeline by_hand =
      message_timeline(three_rank_ring(), MessageLayout{3, 10, false, false}, "by hand");
  EXPECT_EQ(kinds(by_hand), (std::vector<std::string>{lab04::kMessageKind}));
  EXPECT_TRUE(dependency_arrows(by_hand, frame).empty());
}

TEST(Lab04View, DataFromOutsideTheRecvBufferIsNamed) {
  std::vector<Message> m = {{0, 1, 0, -1, -1, 5}};
  EXPECT_EQ(message_timeline(m, {2, 10, false, false}, "").rows[0].spans[0].label, "send buf > r1");
  EXPECT_EQ(message_timeline(m, {2, 10, true, false}, "").rows[0].spans[0].label, "scratch > r1");
}

RunRequest request(const LabSource& lab, std::size_t version, std::int64_t ranks,
                   std::int64_t count, std::int64_t in_place) {
  RunRequest r = default_request(lab);
  r.version = version;
  r.values[*parameter_index(lab, "ranks")] = ranks;
  r.values[*parameter_index(lab, "count")] = count;
  r.values[*parameter_index(lab, "in_place")] = in_place;
  return r;
}

// The lab's ring on simulated ranks: 2(n-1) messages per rank, each to the
// next rank, each rank's bytes within a chunk's rounding of the ideal.
TEST(Lab04View, TheLabsRingRunsOnTheEmulatorWithTwoNMinusOneStepsPerRank) {
  const auto lab = lab04_source();
  ASSERT_NE(lab, nullptr) << "lab 04 is not in this build of the viewer";
  ASSERT_TRUE(shows(*lab, View::kTimeline));
  ASSERT_TRUE(shows(*lab, View::kTraffic));
  if (!runs_the_reference(*lab))
    GTEST_SKIP() << "this build runs labs/ (your code), which may not be finished";
  for (const auto& [ranks, count, in_place] :
       std::vector<std::tuple<int, int, int>>{{4, 1001, 0}, {3, 10, 1}, {8, 4099, 0}}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks, " + std::to_string(count) + " floats");
    const RunOutcome out = lab->run(request(*lab, 0, ranks, count, in_place));
    EXPECT_EQ(out.error, "");
    ASSERT_TRUE(out.timeline.has_value());
    EXPECT_NE(out.timeline->title.find("right"), std::string::npos) << out.timeline->title;
    ASSERT_EQ(out.timeline->rows.size(), static_cast<std::size_t>(ranks));
    for (const TimelineRow& row : out.timeline->rows) {
      ASSERT_EQ(row.spans.size(), static_cast<std::size_t>(2 * (ranks - 1))) << row.name;
      std::set<std::string> phases;
      for (const Span& s : row.spans) phases.insert(s.kind);
      EXPECT_EQ(phases.size(), 2u) << row.name;
    }
    ASSERT_TRUE(out.traffic.has_value());
    ASSERT_TRUE(out.traffic->ideal.has_value());
    EXPECT_DOUBLE_EQ(*out.traffic->ideal, 2.0 * (ranks - 1) / ranks * count * 4);
    ASSERT_EQ(out.traffic->bars.size(), static_cast<std::size_t>(ranks));
    for (std::size_t r = 0; r < out.traffic->bars.size(); ++r) {
      const TrafficBar& bar = out.traffic->bars[r];
      EXPECT_NEAR(static_cast<double>(bar.bytes), *out.traffic->ideal, 2 * 4.0) << bar.label;
      ASSERT_EQ(bar.parts.size(), 1u) << bar.label << " sends to one peer only";
      EXPECT_EQ(bar.parts[0].to, static_cast<int>((r + 1) % ranks));
    }
  }
}

TEST(Lab04View, TheReduceScatterPhaseAloneAndTheByHandAllReduceRunToo) {
  const auto lab = lab04_source();
  ASSERT_NE(lab, nullptr);
  if (!runs_the_reference(*lab))
    GTEST_SKIP() << "this build runs labs/ (your code), which may not be finished";
  const RunOutcome phase = lab->run(request(*lab, 1, 4, 1001, 0));
  EXPECT_EQ(phase.error, "");
  ASSERT_TRUE(phase.timeline.has_value());
  for (const TimelineRow& row : phase.timeline->rows) EXPECT_EQ(row.spans.size(), 3u);
  const RunOutcome by_hand = lab->run(request(*lab, 2, 3, 37, 1));
  EXPECT_EQ(by_hand.error, "");
  ASSERT_TRUE(by_hand.timeline.has_value());
  EXPECT_NE(by_hand.timeline->title.find("right"), std::string::npos) << by_hand.timeline->title;
  std::size_t messages = 0;
  for (const TimelineRow& row : by_hand.timeline->rows) messages += row.spans.size();
  EXPECT_GT(messages, 0u);
}

}  // namespace
}  // namespace cudalab::viewer
