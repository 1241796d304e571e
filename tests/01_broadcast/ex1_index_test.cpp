// Exercise 1: the lecture kernel's global thread index (and the IDX2D macro).
// The kernel runs on grids the test builds, 1-D and 2-D, so the index must
// number blocks row by row through a 2-D grid and count blockDim.x threads each.
#include <gtest/gtest.h>

#include "lab01_test_support.hpp"
#include "near_two_to_the_31.hpp"

namespace lab01::testing {
namespace {

class Ex1Index : public OnBackend {
 protected:
  // Runs the kernel on `launch` and checks the result against the CPU.
  void expect_correct(int x, int y, harness::LaunchDims launch) {
    if (HasFailure()) return;  // report the first failing case only
    const auto size = static_cast<std::size_t>(x) * static_cast<std::size_t>(y);
    std::vector<float> a = rng_.uniform(size, -1.0f, 1.0f);
    const std::vector<float> b = harness::nonzero_values(rng_, static_cast<std::size_t>(y));
    const std::vector<float> expected = harness::broadcast_sum_reference(a, b, x, y);
    const std::string what = "lecture kernel on a " + shape_text(x, y) + ", " + launch_text(launch);
    const Observation run =
        backend().call(harness::entry::broadcast_sum_lecture, a, b, x, y, launch);
    ASSERT_TRUE(ran(run)) << what;
    EXPECT_TRUE(
        matches(a, expected, {static_cast<std::size_t>(x), static_cast<std::size_t>(y)}, what));
    EXPECT_TRUE(nothing_written_outside(run, what));
  }
};

TEST_P(Ex1Index, Ex1_CorrectOnOneDimensionalGrids) {
  const int shapes[][2] = {{1, 1}, {1, 7}, {7, 1}, {3, 17}, {31, 33}, {64, 64}, {100, 3}};
  for (const auto& shape : shapes) {
    for (unsigned block : {32u, 100u, 256u}) {
      const auto size = static_cast<std::size_t>(shape[0]) * shape[1];
      expect_correct(shape[0], shape[1], harness::lecture_grid(size, block));
    }
  }
}

// Small inputs on 2-D grids of a few blocks per row: blockIdx.y must count.
TEST_P(Ex1Index, Ex1_CorrectOnTwoDimensionalGrids) {
  const int shapes[][2] = {{5, 13}, {37, 45}, {61, 127}};
  for (const auto& shape : shapes) {
    for (unsigned block : {32u, 64u, 96u}) {
      const auto size = static_cast<std::size_t>(shape[0]) * shape[1];
      for (std::size_t blocks_per_row : {1, 3, 7}) {
        expect_correct(shape[0], shape[1], harness::lecture_grid(size, block, blocks_per_row));
      }
    }
  }
}

// More than 65535 blocks: the lecture's grid helper switches to a 2-D grid.
TEST_P(Ex1Index, Ex1_CorrectBeyond65535Blocks) {
  if (on_emulator()) {
    expect_correct(257, 521, harness::lecture_grid(257 * 521, 2));  // 66,949 blocks
  } else {
    expect_correct(4099, 8191, harness::lecture_grid(4099 * 8191, 64));  // 524,611 blocks
  }
}

// Close to 2^31 elements, on the lecture's grid in blocks of 1024: the
// 2,147,117,569 elements need 2,096,795 blocks, laid out as 1449 x 1448 =
// 2,098,152 (rounding up to whole rows adds 1,357), so the grid holds
// 2,098,152 * 1024 = 2,148,507,648 threads, 1,024,000 more than 2^31. As an
// int, their index is negative and passes `i >= size`: they write up to
// 8.6 GB before a (an illegal-address fault, unless other memory of the
// process lies there), and the one whose index is -46337^2 adds b[0] to a[0]
// a second time, which the values show.
TEST_P(Ex1Index, Ex1_NearTwoToThe31Elements) {
  if (on_emulator()) GTEST_SKIP() << kGpuOnlyReason;
  const int side = kNearTwoToThe31Side;
  const harness::LaunchDims launch =
      harness::lecture_grid(static_cast<std::size_t>(side) * side, 1024);
  ASSERT_GT(std::uint64_t{launch.grid.x} * launch.grid.y * launch.block.x, std::uint64_t{1} << 31)
      << "the test needs a grid of more than 2^31 threads";
  const std::string what =
      "lecture kernel on a " + shape_text(side, side) + ", " + launch_text(launch);
  expect_square_sum_correct(
      rng_, side, what, [&](std::vector<float>& a, const std::vector<float>& b) {
        return backend().call(harness::entry::broadcast_sum_lecture, a, b, side, side, launch);
      });
}

TEST_P(Ex1Index, Ex1_ZeroSizeWritesNothing) {
  expect_correct(0, 5, harness::lecture_grid(0, 128));
  expect_correct(4, 0, harness::lecture_grid(0, 128));
}

CUDALAB_ON_BOTH_BACKENDS(Ex1Index);

// Through the emulator's trace: which thread wrote which element, how often.
class Ex1Coverage : public OnBackend {};

TEST_P(Ex1Coverage, Ex1_EveryElementWrittenExactlyOnce) {
  const int x = 37;
  const int y = 45;
  for (std::size_t blocks_per_row : {1, 4, 65535}) {
    const harness::LaunchDims launch = harness::lecture_grid(x * y, 64, blocks_per_row);
    std::vector<float> a = rng_.uniform(x * y, -1.0f, 1.0f);
    const std::vector<float> b = harness::nonzero_values(rng_, y);
    RunOptions options;
    options.trace = true;
    const Observation run =
        backend().call(harness::entry::broadcast_sum_lecture, a, b, x, y, launch, options);
    ASSERT_TRUE(ran(run));
    ASSERT_TRUE(run.coverage.has_value());
    const std::string what = "lecture kernel on a " + shape_text(x, y) + ", " + launch_text(launch);
    EXPECT_TRUE(written_exactly_once(*run.coverage, y, what));
    if (HasFailure()) return;
  }
}

CUDALAB_ON_EMULATOR_ONLY(Ex1Coverage);

}  // namespace
}  // namespace lab01::testing
