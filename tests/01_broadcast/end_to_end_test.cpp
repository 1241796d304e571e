// Your code alone, end to end: exercises 1-3 together, as a user of the lab
// would call them. The exercise tests grade each idea on its own (exercise
// 2's launch shape with the reference kernel, exercise 3's kernel with the
// reference launch shape); this test belongs to no exercise and fails
// whenever the pieces do not work together.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lab01_test_support.hpp"

namespace lab01::testing {
namespace {

class EndToEnd : public OnBackend {
 protected:
  template <class Call>
  void expect_correct(const std::string& name, int x, int y, int block_size, Call&& call) {
    if (HasFailure()) return;  // report the first failing case only
    const auto size = static_cast<std::size_t>(x) * static_cast<std::size_t>(y);
    std::vector<float> a = rng_.uniform(size, -1.0f, 1.0f);
    const std::vector<float> b = harness::nonzero_values(rng_, static_cast<std::size_t>(y));
    const std::vector<float> expected = harness::broadcast_sum_reference(a, b, x, y);
    const std::string what =
        name + " on a " + shape_text(x, y) + " with block size " + std::to_string(block_size);
    const Observation run = call(a, b, x, y, block_size);
    ASSERT_TRUE(ran(run)) << what;
    expect_broadcast_sum_correct(run, a, expected, x, y, what);
  }
};

TEST_P(EndToEnd, BroadcastSumWithYourKernelAndYourLaunchShape) {
  const int shapes[][3] = {{1, 1, 32}, {127, 129, 96}, {0, 5, 128}, {7, 10007, 1}};
  for (const auto& s : shapes) {
    expect_correct("broadcast_sum", s[0], s[1], s[2],
                   [&](auto&... args) { return backend().broadcast_sum(args...); });
    expect_correct("broadcast_sum_coalesced", s[0], s[1], s[2],
                   [&](auto&... args) { return backend().broadcast_sum_coalesced(args...); });
  }
}

CUDALAB_ON_BOTH_BACKENDS(EndToEnd);

}  // namespace
}  // namespace lab01::testing
