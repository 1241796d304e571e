// Exercise 4: stream-ordered allocation. The student's produce_consume_free
// allocates A with cudaMallocAsync, fills it on the default stream, sums it
// on a side stream whose sum is delayed, and frees it with cudaFreeAsync;
// then B of the same size is allocated and filled on the default stream:
//   * the sum is right (20 trials on the GPU with a 20 ms delay; on the
//     emulator, every schedule tried, with no race report), and B may get
//     A's memory once the sum is done;
//   * the fix is an ordering on the device, not a host sync: independent
//     work on a third stream issued afterwards overlaps the delayed sum.
#include <gtest/gtest.h>

#include "lab03_test_support.hpp"
#include "scenarios.hpp"

namespace lab03 {
namespace {

using cudalab::harness::ran;

constexpr int kCount = 100003;

class Ex4StreamOrderedFree : public OnBackend {};

TEST_P(Ex4StreamOrderedFree, Ex4_TheFreeWaitsForTheConsumer) {
  if (on_emulator()) {
    for (const std::string& schedule : schedules_to_try()) {
      SCOPED_TRACE("emulator schedule " + schedule + " (CUDALAB_EMU_SCHEDULE=" + schedule +
                   " repeats it)");
      cudalab::emu::ScopedOptions scoped(with_schedule(schedule));
      const harness::Consumed r =
          backend().call(harness::entry::free_async_hazard, kCount, 1.0, 1.0);
      ASSERT_TRUE(ran(r.observation));
      EXPECT_EQ(r.sum, r.expected) << "B was written into A's memory while the sum read it";
      EXPECT_TRUE(r.observation.reports.empty())
          << "the race checker found A's memory reused before the sum was done:"
          << (r.observation.reports.empty() ? "" : "\n" + r.observation.reports.front());
    }
    expect_reports();  // each schedule's first report is in its failure above
  } else {
    for (int trial = 0; trial < 20; ++trial) {
      SCOPED_TRACE("GPU trial " + std::to_string(trial) + " of 20, the sum delayed 20 ms");
      const harness::Consumed r =
          backend().call(harness::entry::free_async_hazard, 1 << 22, 20.0, 1.0);
      ASSERT_TRUE(ran(r.observation));
      ASSERT_EQ(r.sum, r.expected) << "B was written into A's memory while the sum read it";
    }
  }
}

TEST_P(Ex4StreamOrderedFree, Ex4_NoHostSyncIndependentWorkOverlaps) {
  const double delay_ms = 20.0, independent_ms = 20.0;
  const harness::Consumed r =
      backend().call(harness::entry::free_async_hazard, on_emulator() ? kCount : 1 << 22, delay_ms,
                     independent_ms);
  ASSERT_TRUE(ran(r.observation));
  EXPECT_EQ(r.sum, r.expected);
  ASSERT_EQ(r.spans.size(), 2u) << describe(r.spans);
  const harness::Span &consumer = r.spans[0], &independent = r.spans[1];
  const std::string spans = describe({consumer, independent});
  EXPECT_TRUE(overlap(consumer, independent))
      << "the third stream's work should run while the side stream's sum does: the free "
         "waits on the device, not the host"
      << spans;
  if (!on_emulator()) {
    EXPECT_LT(r.total_ms, 0.8 * (delay_ms + independent_ms)) << spans;
  }
}

CUDALAB_ON_BOTH_BACKENDS(Ex4StreamOrderedFree);

}  // namespace
}  // namespace lab03
