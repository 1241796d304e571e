// Exercise 2: the missing wait. The student's produce_then_consume fills A
// on the default stream and sums it on a side stream:
//   * on the emulator, under the adversarial and fifo orders and 20 seeded
//     ones, the sum is n and the race checker has nothing to say (without
//     the wait it reports a stream_race naming fill_kernel and sum_kernel
//     on every schedule, and the adversarial order sums zeros);
//   * on the GPU, 20 of 20 trials are right with the producer delayed by
//     20 ms and A allocated before (no cudaMalloc to synchronise by accident);
//   * work on a third stream issued afterwards still overlaps the producer:
//     a cudaDeviceSynchronize in place of the wait makes it wait (the GPU:
//     under 0.8x the serial time; the emulator: overlapping spans).
#include <gtest/gtest.h>

#include "lab03_test_support.hpp"

namespace lab03 {
namespace {

using cudalab::harness::ran;

constexpr int kCount = 100003;  // a prime: no multiple of any block size

class Ex2MissingWait : public OnBackend {};

TEST_P(Ex2MissingWait, Ex2_TheConsumerSeesTheFillOnEverySchedule) {
  if (on_emulator()) {
    // Every schedule is tried; the failure names those that went wrong.
    for (const std::string& schedule : schedules_to_try()) {
      SCOPED_TRACE("emulator schedule " + schedule + " (CUDALAB_EMU_SCHEDULE=" + schedule +
                   " repeats it)");
      cudalab::emu::ScopedOptions scoped(with_schedule(schedule));
      const harness::Consumed r = backend().producer_consumer(kCount, 1.0, 1.0);
      ASSERT_TRUE(ran(r.observation));
      EXPECT_EQ(r.sum, r.expected) << "the sum read A before the fill wrote it";
      EXPECT_TRUE(r.observation.reports.empty())
          << "the race checker found the consumer unordered with the producer:"
          << (r.observation.reports.empty() ? "" : "\n" + r.observation.reports.front());
    }
    expect_reports();  // each schedule's first report is in its failure above
  } else {
    for (int trial = 0; trial < 20; ++trial) {
      SCOPED_TRACE("GPU trial " + std::to_string(trial) + " of 20, producer delayed 20 ms");
      const harness::Consumed r = backend().producer_consumer(1 << 22, 20.0, 1.0);
      ASSERT_TRUE(ran(r.observation));
      ASSERT_EQ(r.sum, r.expected) << "the sum read A before the fill wrote it";
    }
  }
}

TEST_P(Ex2MissingWait, Ex2_IndependentWorkStillOverlapsTheProducer) {
  const double delay_ms = 20.0, independent_ms = 20.0;
  const harness::Consumed r =
      backend().producer_consumer(on_emulator() ? kCount : 1 << 22, delay_ms, independent_ms);
  ASSERT_TRUE(ran(r.observation));
  EXPECT_EQ(r.sum, r.expected);
  ASSERT_EQ(r.spans.size(), 2u) << describe(r.spans);
  const harness::Span &producer = r.spans[0], &independent = r.spans[1];
  const std::string spans = describe({producer, independent});
  EXPECT_TRUE(overlap(producer, independent))
      << "the third stream's work should run while the producer does: only the side stream "
         "waits for it, not the host (no cudaDeviceSynchronize)"
      << spans;
  if (!on_emulator()) {
    const double serial = delay_ms + independent_ms;
    EXPECT_LT(r.total_ms, 0.8 * serial)
        << "took " << r.total_ms << " ms; one after the other would be " << serial << spans;
  }
}

CUDALAB_ON_BOTH_BACKENDS(Ex2MissingWait);

}  // namespace
}  // namespace lab03
