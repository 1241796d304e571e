// The benchmark's timing loop (exercise 5, `./lab bench 04`) on the
// reference: the communicator's four collectives and the ring, on simulated
// ranks with a device each and, on a GPU machine, through NCCL. Every
// rank's output is checked after the repeats, so nothing is wrong; on the
// emulator this is the only run of that loop short of a GPU machine.
#include <gtest/gtest.h>

#include <algorithm>

#include "lab04_test_support.hpp"

namespace lab04 {
namespace {

class BenchTiming : public OnBackend {};

TEST_P(BenchTiming, EveryCollectiveAndTheRingLeaveNoWrongElement) {
  // Simulated ranks need a device each here as in the benchmark.
  const int ranks = std::min(3, reference().nccl_devices());
  for (const CommKind kind : {CommKind::simulated, CommKind::nccl}) {
    const char* on = kind == CommKind::nccl ? " through NCCL" : " on simulated ranks";
    for (const auto& collective : cudalab::comm::kCollectives) {
      const cudalab::harness::TimedCollective timed =
          reference().time_collective(collective.which, nullptr, kind, ranks, 37, 2);
      EXPECT_EQ(timed.wrong, 0u) << collective.name << on;
      EXPECT_GE(timed.ms, 0.0) << collective.name << on;
    }
    const cudalab::harness::TimedCollective ring = reference().time_collective(
        Collective::all_reduce, &entry::ring_all_reduce, kind, ranks, 1001, 2);
    EXPECT_EQ(ring.wrong, 0u) << "the reference ring" << on;
  }
  // The check itself: a ring stopped after its reduce-scatter has summed one
  // chunk per rank, not the others.
  if (ranks < 2) GTEST_SKIP() << "the unfinished ring needs 2 devices to be wrong on";
  EXPECT_GT(reference()
                .time_collective(Collective::all_reduce, &entry::ring_until_reduce_scatter,
                                 CommKind::simulated, ranks, 1001, 1)
                .wrong,
            0u);
}

CUDALAB_ON_BOTH_BACKENDS(BenchTiming);

}  // namespace
}  // namespace lab04
