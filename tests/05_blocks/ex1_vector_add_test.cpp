// Exercise 1: vector add and the fused activation sqrt(x + 1), on awkward
// lengths (1, a prime, one block, a length past 65535 / 1024 programs' worth,
// 2^20 + 3), output pre-filled with NaN and guarded on both sides. Float
// addition and sqrtf are correctly rounded on both sides, so the results are
// exact. On the emulator the trace must show one trip through memory: the
// fused program reads 4n bytes and writes 4n, in requests of at most 4
// sectors, every output element written once.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "lab05_test_support.hpp"

namespace lab05 {
namespace {

using cudalab::harness::matches;
using cudalab::harness::nothing_written_outside;
using cudalab::harness::ran;
using cudalab::harness::RunOptions;

constexpr int kLengths[] = {1, 97, 1024, 98432, (1 << 20) + 3};

std::vector<float> nans(std::size_t n) {
  return std::vector<float>(n, std::numeric_limits<float>::quiet_NaN());
}

class Ex1VectorAdd : public OnBackend {};

TEST_P(Ex1VectorAdd, Ex1_AddOnAwkwardLengths) {
  for (const int n : kLengths) {
    const auto x = rng_.uniform(n, -100.0f, 100.0f);
    const auto y = rng_.uniform(n, -100.0f, 100.0f);
    std::vector<float> expected(n);
    for (int i = 0; i < n; ++i) expected[i] = x[i] + y[i];
    auto out = nans(n);
    const std::string what = "add on n = " + std::to_string(n);
    const auto observation = backend().call(harness::entry::add, x, y, out, n);
    ASSERT_TRUE(ran(observation)) << what;
    EXPECT_TRUE(matches(out, expected, {}, what));
    EXPECT_TRUE(nothing_written_outside(observation, what));
    if (HasFailure()) return;
  }
}

TEST_P(Ex1VectorAdd, Ex1_FusedActivationOnAwkwardLengths) {
  for (const int n : kLengths) {
    auto x = rng_.uniform(n, -1.0f, 1000.0f);
    x[0] = -1.0f;  // sqrt(0)
    std::vector<float> expected(n);
    for (int i = 0; i < n; ++i) expected[i] = std::sqrt(x[i] + 1.0f);
    auto out = nans(n);
    const std::string what = "fused_activation on n = " + std::to_string(n);
    const auto observation = backend().call(harness::entry::fused_activation, x, out, n);
    ASSERT_TRUE(ran(observation)) << what;
    EXPECT_TRUE(matches(out, expected, {}, what));
    EXPECT_TRUE(nothing_written_outside(observation, what));
    if (HasFailure()) return;
  }
}

CUDALAB_ON_ALL_BACKENDS(Ex1VectorAdd);

// What the emulator saw of the programs' memory traffic.
class Ex1Trace : public OnBackend {};

TEST_P(Ex1Trace, Ex1_FusedActivationIsOneTripThroughMemory) {
  for (const int n : {1, 97, 98432}) {
    const auto x = rng_.uniform(n, 0.0f, 10.0f);
    auto out = nans(n);
    const std::string what = "fused_activation on n = " + std::to_string(n);
    const auto observation =
        backend().call(harness::entry::fused_activation, x, out, n, RunOptions{.trace = true});
    ASSERT_TRUE(ran(observation)) << what;
    const std::uint64_t bytes = 4ull * n;
    EXPECT_TRUE(moved_bytes(observation, bytes, bytes, what));
    EXPECT_TRUE(coalesced(*observation.loads, 4, what + " (loads)"));
    EXPECT_TRUE(coalesced(*observation.stores, 4, what + " (stores)"));
    EXPECT_TRUE(cudalab::harness::written_exactly_once(*observation.coverage, {}, what));
    if (HasFailure()) return;
  }
  // The two-kernel version (not yours) makes the second trip the fusion saves.
  const int n = 4099;
  const auto x = rng_.uniform(n, 0.0f, 10.0f);
  auto out = nans(n);
  const auto unfused =
      backend().call(harness::entry::unfused_activation, x, harness::Temp<float>{std::size_t(n)},
                     out, n, RunOptions{.trace = true});
  ASSERT_TRUE(ran(unfused));
  EXPECT_TRUE(moved_bytes(unfused, 8ull * n, 8ull * n, "unfused_activation"));
}

TEST_P(Ex1Trace, Ex1_AddReadsEachInputOnceInCoalescedRequests) {
  const int n = 5003;
  const auto x = rng_.uniform(n, -1.0f, 1.0f), y = rng_.uniform(n, -1.0f, 1.0f);
  auto out = nans(n);
  const auto observation =
      backend().call(harness::entry::add, x, y, out, n, RunOptions{.trace = true});
  ASSERT_TRUE(ran(observation));
  EXPECT_TRUE(moved_bytes(observation, 8ull * n, 4ull * n, "add on n = 5003"));
  EXPECT_TRUE(coalesced(*observation.loads, 4, "add (loads)"));
  EXPECT_TRUE(coalesced(*observation.stores, 4, "add (stores)"));
}

CUDALAB_ON_EMULATOR_ONLY(Ex1Trace);

}  // namespace
}  // namespace lab05
