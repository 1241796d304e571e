// Exercise 3: a caching allocator with record_stream. The student's
// CachingAllocator:
//   * reuses a freed block at once on its own stream, never on another
//     stream and never for another size;
//   * the lecture's hazard (A freed while a side stream still sums it, B of
//     the same size allocated and written on the default stream): with
//     record_stream(A, side) the sum is right, the race checker is quiet
//     and B is not A's block (on the GPU with the side stream's sum delayed
//     20 ms; on the emulator the first cudaEventQuery of unfinished work
//     answers not ready), so neither the free nor the allocation waited on
//     the host; without record_stream the emulator reports the race (the
//     skeleton);
//   * record_stream's finer rules: the block's own stream is never recorded;
//     the events go on the recorded streams, and every one must have
//     completed (a busy stream first or last); a free forgets the recorded
//     streams, so a later life of the block does not wait for them;
//   * with the other guard (the default stream waits for the side stream
//     before the free) B is A's block again, and the sum is right;
//   * over 1000 rounds of allocate, use on two streams, record_stream,
//     free, the reserved memory stays at two blocks or less.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>

#include "lab03_test_support.hpp"
#include "scenarios.hpp"

namespace lab03 {
namespace {

using cudalab::harness::ran;
using harness::ReuseGuard;

constexpr int kCount = 4099;  // A's floats: a prime, not a multiple of the 512-byte rounding

class Ex3CachingAllocator : public OnBackend {
 protected:
  double consumer_delay_ms() const { return on_emulator() ? 1.0 : 20.0; }
};

TEST_P(Ex3CachingAllocator, Ex3_FreedBlocksAreReusedOnTheirOwnStreamOnly) {
  for (std::size_t bytes : {std::size_t{1}, std::size_t{4096}, std::size_t{100003}}) {
    SCOPED_TRACE(std::to_string(bytes) + " bytes");
    const harness::AllocatorReuse r = backend().call(harness::entry::allocator_reuse, bytes);
    EXPECT_TRUE(r.same_stream_reuses) << "freed on s, allocated again on s: the same block";
    EXPECT_FALSE(r.other_stream_reuses) << "a block freed on s must not go to stream t";
    EXPECT_FALSE(r.other_size_reuses) << "a larger request must not get the smaller block";
    EXPECT_GE(r.reserved_after, 2 * bytes);
  }
}

TEST_P(Ex3CachingAllocator, Ex3_RecordStreamKeepsTheBlockFromTheNextTensor) {
  const harness::Consumed r = backend().call(harness::entry::reuse_hazard, kCount,
                                             ReuseGuard::record_stream, consumer_delay_ms());
  ASSERT_TRUE(ran(r.observation));
  EXPECT_EQ(r.sum, r.expected) << "the next tensor overwrote A while the side stream summed it";
  EXPECT_TRUE(r.observation.reports.empty()) << reports_text(r.observation);
  EXPECT_FALSE(r.pointer_reused)
      << "the side stream's sum was still running: A's block must wait for it (an event queried "
         "with cudaEventQuery, not a host synchronisation at the free or the allocation)";
}

TEST_P(Ex3CachingAllocator, Ex3_RecordStreamWaitsForEveryRecordedStreamAndNoOther) {
  const harness::RecordStreamRules r =
      backend().call(harness::entry::record_stream_rules, kCount, consumer_delay_ms());
  ASSERT_TRUE(ran(r.observation));
  EXPECT_TRUE(r.own_stream_record_reused)
      << "record_stream on the block's own stream changes nothing (stream order protects it "
         "there): freed, it is reused at once";
  EXPECT_FALSE(r.reused_while_recorded_stream_busy)
      << "the block's own stream was idle but the recorded stream still read the block: the "
         "event belongs on the recorded stream";
  EXPECT_FALSE(r.reused_while_second_recorded_stream_busy)
      << "recorded on an idle stream and then on a busy one: every pending event must have "
         "completed";
  EXPECT_FALSE(r.reused_while_first_recorded_stream_busy)
      << "recorded on a busy stream and then on an idle one: every pending event must have "
         "completed";
  EXPECT_TRUE(r.reused_once_recorded_work_done)
      << "all recorded work done: the block goes back to its stream's free list";
  EXPECT_TRUE(r.reused_after_unrecorded_life)
      << "freed again without record_stream: the streams recorded in the block's earlier life "
         "must be forgotten at that free, not waited for";
}

TEST_P(Ex3CachingAllocator, Ex3_WaitStreamStillReusesTheBlock) {
  const harness::Consumed r = backend().call(harness::entry::reuse_hazard, kCount,
                                             ReuseGuard::wait_stream, consumer_delay_ms());
  ASSERT_TRUE(ran(r.observation));
  EXPECT_EQ(r.sum, r.expected);
  EXPECT_TRUE(r.observation.reports.empty()) << reports_text(r.observation);
  EXPECT_TRUE(r.pointer_reused) << "stream order protects A here: the default stream waits for "
                                   "the side stream, so its next tensor may take A's block at once";
}

TEST_P(Ex3CachingAllocator, Ex3_WithoutAGuardTheRaceCheckerSeesTheHazard) {
  if (!on_emulator()) GTEST_SKIP() << "the race checker is the emulator's";
  expect_reports();
  const harness::Consumed r =
      backend().call(harness::entry::reuse_hazard, kCount, ReuseGuard::none, 1.0);
  ASSERT_TRUE(ran(r.observation));
  EXPECT_TRUE(r.pointer_reused) << "freed on the default stream, A's block is reused there at once";
  EXPECT_TRUE(race_between(r.observation, "fill_kernel", "sum_kernel"));
}

TEST_P(Ex3CachingAllocator, Ex3_ReservedMemoryStaysBounded) {
  const std::vector<std::size_t> reserved =
      backend().call(harness::entry::reserved_over_iterations, 1000, 256);
  ASSERT_EQ(reserved.size(), 1000u);
  const std::size_t most = *std::max_element(reserved.begin(), reserved.end());
  EXPECT_GE(most, 256 * sizeof(float));
  EXPECT_LE(most, 2 * 1024u) << "after round "
                             << (std::max_element(reserved.begin(), reserved.end()) -
                                 reserved.begin())
                             << ": blocks whose events completed must be reused";
}

CUDALAB_ON_BOTH_BACKENDS(Ex3CachingAllocator);

}  // namespace
}  // namespace lab03
