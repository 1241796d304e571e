// Exercise 2: a launch configuration for any size and any block size. The
// student may keep the 2-D grid or use a grid-stride loop: the tests only
// look at the result (and, on the emulator, that each element is written once).
#include <gtest/gtest.h>

#include "lab01_test_support.hpp"

namespace lab01::testing {
namespace {

const bool titled =
    cudalab::harness::describe_exercise(2, "a launch configuration for any size and block size");

class Ex2Launch : public OnBackend {
 protected:
  void expect_correct(int x, int y, int block_size, const RunOptions& options = {}) {
    if (HasFailure()) return;  // report the first failing case only
    const auto size = static_cast<std::size_t>(x) * static_cast<std::size_t>(y);
    std::vector<float> a = rng_.uniform(size, -1.0f, 1.0f);
    const std::vector<float> b = harness::nonzero_values(rng_, static_cast<std::size_t>(y));
    const std::vector<float> expected = harness::broadcast_sum_reference(a, b, x, y);
    const std::string what =
        "broadcast_sum on a " + shape_text(x, y) + " with block size " + std::to_string(block_size);
    const Observation run = backend().broadcast_sum(a, b, x, y, block_size, options);
    ASSERT_TRUE(ran(run)) << what;
    expect_broadcast_sum_correct(run, a, expected, x, y, what);
    note_gpu_time(run, what, 4.0 * (2.0 * static_cast<double>(size) + y));
  }
};

TEST_P(Ex2Launch, Ex2_AnyShapeAnyBlockSize) {
  const int shapes[][2] = {{1, 1}, {2, 3}, {5, 1}, {1, 1000}, {127, 129}, {513, 1023}};
  for (const auto& shape : shapes) {
    for (int block_size : {1, 32, 96, 128, 256, 1024}) {
      if (block_size == 1 && shape[0] * shape[1] > 20000) continue;  // slow on the emulator
      expect_correct(shape[0], shape[1], block_size);
    }
  }
}

// More than 65535 blocks (small blocks keep the emulator quick).
TEST_P(Ex2Launch, Ex2_MoreThan65535Blocks) {
  expect_correct(7, 10007, 1);  // 70,049 blocks of 1 thread
  if (on_emulator()) {
    expect_correct(521, 257, 2);  // 66,949 blocks
  } else {
    RunOptions timed;
    timed.time = true;
    expect_correct(8191, 8209, 32, timed);  // 2,101,247 blocks
  }
}

// Zero elements: nothing to do, and no invalid launch (a grid of 0 blocks is one).
TEST_P(Ex2Launch, Ex2_ZeroSizeLaunchesNothingInvalid) {
  expect_correct(0, 7, 128);
  expect_correct(9, 0, 128);
  expect_correct(0, 0, 1024);
}

CUDALAB_ON_BOTH_BACKENDS(Ex2Launch);

// Through the emulator's trace: how often each element was written.
class Ex2Coverage : public Ex2Launch {};

TEST_P(Ex2Coverage, Ex2_EveryElementWrittenExactlyOnce) {
  RunOptions options;
  options.trace = true;
  expect_correct(50, 77, 96, options);
  expect_correct(3, 1000, 1024, options);
  expect_correct(1, 300, 1, options);
}

CUDALAB_ON_EMULATOR_ONLY(Ex2Coverage);

}  // namespace
}  // namespace lab01::testing
