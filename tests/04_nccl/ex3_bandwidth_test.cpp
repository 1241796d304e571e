// Exercise 3: algbw and busbw as nccl-tests computes them
// (doc/PERFORMANCE.md), on random sizes and times.
#include <gtest/gtest.h>

#include <cmath>

#include "lab04_test_support.hpp"

namespace lab04 {
namespace {

class Ex3Bandwidth : public OnBackend {
 protected:
  // The student's three functions, through their entry points.
  double message_bytes(Collective which, std::size_t count, std::size_t element_bytes, int ranks) {
    return backend().call(entry::message_bytes, which, count, element_bytes, ranks);
  }
  double algbw_gbps(double bytes, double seconds) {
    return backend().call(entry::algbw_gbps, bytes, seconds);
  }
  double busbw_factor(Collective which, int ranks) {
    return backend().call(entry::busbw_factor, which, ranks);
  }
};

TEST_P(Ex3Bandwidth, Ex3_MessageBytesFollowNcclTests) {
  for (int trial = 0; trial < 20; ++trial) {
    const std::size_t count = 1 + rng_.next_below(1u << 28);
    const int ranks = 1 + static_cast<int>(rng_.next_below(16));
    const std::size_t element = trial % 2 ? 4 : 2;
    const double per_rank = static_cast<double>(count) * static_cast<double>(element);
    EXPECT_DOUBLE_EQ(message_bytes(Collective::all_reduce, count, element, ranks), per_rank);
    EXPECT_DOUBLE_EQ(message_bytes(Collective::broadcast, count, element, ranks), per_rank);
    EXPECT_DOUBLE_EQ(message_bytes(Collective::all_gather, count, element, ranks), per_rank * ranks)
        << "all_gather's S is the whole gathered buffer";
    EXPECT_DOUBLE_EQ(message_bytes(Collective::reduce_scatter, count, element, ranks),
                     per_rank * ranks)
        << "reduce_scatter's S is the whole input buffer";
  }
}

TEST_P(Ex3Bandwidth, Ex3_AlgbwIsBytesOverTimeInGBPerSecond) {
  EXPECT_DOUBLE_EQ(algbw_gbps(1e9, 1.0), 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    const double bytes = 1 + static_cast<double>(rng_.next_below(1ull << 32));
    const double seconds = 1e-6 + rng_.next_unit();
    EXPECT_NEAR(algbw_gbps(bytes, seconds), bytes / seconds / 1e9, 1e-12 * bytes / seconds);
  }
}

TEST_P(Ex3Bandwidth, Ex3_BusbwFactors) {
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::all_reduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::all_reduce, 2), 1.0)
      << "on 2 ranks an all-reduce's busbw equals its algbw";
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::all_reduce, 1), 0.0);
  for (int n = 1; n <= 64; ++n) {
    EXPECT_DOUBLE_EQ(busbw_factor(Collective::all_reduce, n), 2.0 * (n - 1) / n) << n;
    EXPECT_DOUBLE_EQ(busbw_factor(Collective::all_gather, n), (n - 1.0) / n) << n;
    EXPECT_DOUBLE_EQ(busbw_factor(Collective::reduce_scatter, n), (n - 1.0) / n) << n;
    EXPECT_DOUBLE_EQ(busbw_factor(Collective::broadcast, n), 1.0) << n;
  }
}

CUDALAB_ON_BOTH_BACKENDS(Ex3Bandwidth);

}  // namespace
}  // namespace lab04
