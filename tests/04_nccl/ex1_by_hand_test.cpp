// Exercise 1: the four collectives by hand on Comm's send and recv, on
// simulated ranks (emulator: a virtual device per rank; GPU: streams of one
// GPU). Every rank count of kRankCounts, counts that do not divide by the
// ranks (1, a prime), a root that is not 0, and in-place buffers.
#include <gtest/gtest.h>

#include "lab04_test_support.hpp"

namespace lab04 {
namespace {

class Ex1ByHand : public OnBackend {
 protected:
  void check_all(Collective which) {
    for (const int ranks : kRankCounts) {
      for (const std::size_t count : {std::size_t{1}, std::size_t{37}}) {
        for (const bool in_place : {false, true}) {
          const CollectiveCase c = make_case(rng_, which, ranks, count, in_place, ranks - 1);
          EXPECT_TRUE(
              holds_expected(backend().run(entry::by_hand(which), c, CommKind::simulated), c));
        }
      }
    }
    // A longer buffer on 3 ranks, whose blocks are not a multiple of anything.
    const CollectiveCase c = make_case(rng_, which, 3, 1009, false, 1);
    EXPECT_TRUE(holds_expected(backend().run(entry::by_hand(which), c, CommKind::simulated), c));
  }
};

TEST_P(Ex1ByHand, Ex1_AllReduce) { check_all(Collective::all_reduce); }
TEST_P(Ex1ByHand, Ex1_Broadcast) { check_all(Collective::broadcast); }
TEST_P(Ex1ByHand, Ex1_AllGather) { check_all(Collective::all_gather); }
TEST_P(Ex1ByHand, Ex1_ReduceScatter) { check_all(Collective::reduce_scatter); }

// The check itself: the reference's output with one element changed, or
// one NaN, is rejected.
TEST_P(Ex1ByHand, Ex1_TheCheckRejectsAPerturbedOutput) {
  const CollectiveCase c = make_case(rng_, Collective::all_reduce, 3, 37);
  RanksRun run = reference().run(entry::by_hand(c.which), c, CommKind::simulated);
  ASSERT_TRUE(holds_expected(run, c));
  const std::size_t i = rng_.next_below(37);
  run.outputs[1][i] += 1.0f;
  EXPECT_FALSE(holds_expected(run, c));
  run.outputs[1][i] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(holds_expected(run, c));
}

CUDALAB_ON_BOTH_BACKENDS(Ex1ByHand);

}  // namespace
}  // namespace lab04
