// Exercise 2: the four collectives through NCCL's API, one thread driving
// every rank in one group. The emulator runs them on its NCCL (a virtual
// device per rank, every rank count); a GPU machine on real NCCL with as
// many ranks as it has GPUs (1 on one H200; the larger counts are skipped
// there with the reason).
#include <gtest/gtest.h>

#include "lab04_test_support.hpp"

namespace lab04 {
namespace {

class Ex2NcclApi : public OnBackend {
 protected:
  void check_all(Collective which) {
    int ran = 0;
    for (const int ranks : kRankCounts) {
      if (ranks > backend().nccl_devices()) continue;
      for (const bool in_place : {false, true}) {
        const CollectiveCase c = make_case(rng_, which, ranks, 37, in_place, ranks - 1);
        // One failure is enough: a rank that never joins costs a time-out each.
        ASSERT_TRUE(holds_expected(backend().through_nccl(c), c));
        ++ran;
      }
    }
    ASSERT_GT(ran, 0) << "no rank count fits this machine's " << backend().nccl_devices()
                      << " devices";
    if (backend().nccl_devices() < kRankCounts.back()) {
      GTEST_SKIP() << "checked up to " << backend().nccl_devices()
                   << " ranks: NCCL needs a device per rank";
    }
  }
};

TEST_P(Ex2NcclApi, Ex2_AllReduce) { check_all(Collective::all_reduce); }
TEST_P(Ex2NcclApi, Ex2_Broadcast) { check_all(Collective::broadcast); }
TEST_P(Ex2NcclApi, Ex2_AllGather) { check_all(Collective::all_gather); }
TEST_P(Ex2NcclApi, Ex2_ReduceScatter) { check_all(Collective::reduce_scatter); }

// Same answers as exercise 1's collectives, bit for bit.
TEST_P(Ex2NcclApi, Ex2_AgreesWithTheCollectivesByHand) {
  const int ranks = std::min(3, backend().nccl_devices());
  for (const Collective which : {Collective::all_reduce, Collective::broadcast,
                                 Collective::all_gather, Collective::reduce_scatter}) {
    const CollectiveCase c = make_case(rng_, which, ranks, 101, false, ranks - 1);
    const RanksRun nccl = backend().through_nccl(c);
    const RanksRun by_hand = reference().run(entry::by_hand(which), c, CommKind::simulated);
    ASSERT_TRUE(holds_expected(nccl, c));
    EXPECT_EQ(cudalab::comm::first_mismatch(nccl.outputs, by_hand.outputs), std::nullopt)
        << describe(c);
  }
}

// Rank r on devices[r], whatever the list: here rank 0 on the last device.
// (A communicator made on devices 0 .. n-1 instead queues each rank's work
// on another device's stream, which CUDA refuses.)
TEST_P(Ex2NcclApi, Ex2_EachRankOnTheDeviceItIsGiven) {
  if (backend().nccl_devices() < 2) GTEST_SKIP() << "needs 2 devices to put rank 0 elsewhere";
  const int ranks = std::min(3, backend().nccl_devices());
  for (const Collective which : {Collective::all_reduce, Collective::broadcast,
                                 Collective::all_gather, Collective::reduce_scatter}) {
    CollectiveCase c = make_case(rng_, which, ranks, 37, false, 1);
    c.devices_reversed = true;
    EXPECT_TRUE(holds_expected(backend().through_nccl(c), c))
        << "rank r on device " << ranks - 1 << " - r";
  }
}

CUDALAB_ON_BOTH_BACKENDS(Ex2NcclApi);

}  // namespace
}  // namespace lab04
