// Exercise 2: a launch configuration for any size and any block size. The
// tests run the student's launch shape with the reference kernel (the kernel
// is exercise 1's), look at the result (and, on the emulator, that each
// element is written once), and at the launch shape alone for sizes up to
// INT_MAX, too large to run on the emulator.
#include <gtest/gtest.h>

#include <cstdint>
#include <exception>
#include <limits>
#include <string>
#include <vector>

#include "lab01_test_support.hpp"
#include "near_two_to_the_31.hpp"

namespace lab01::testing {
namespace {

class Ex2Launch : public OnBackend {
 protected:
  // The student's launch shape with the reference kernel. Zero elements go
  // through the student's broadcast_sum, which must launch nothing.
  Observation broadcast_sum(std::vector<float>& a, const std::vector<float>& b, int x, int y,
                            int block_size, const RunOptions& options = {}) {
    if (x == 0 || y == 0)
      return backend().call(harness::entry::broadcast_sum, a, b, x, y, block_size, options);
    const harness::LaunchDims launch =
        backend().call(harness::entry::broadcast_sum_launch_shape, x * y, block_size);
    return reference().call(harness::entry::broadcast_sum_lecture, a, b, x, y, launch, options);
  }

  void expect_correct(int x, int y, int block_size, const RunOptions& options = {}) {
    if (HasFailure()) return;  // report the first failing case only
    run_broadcast_sum(rng_, x, y, run_text("broadcast_sum", x, y, block_size),
                      [&](std::vector<float>& a, const std::vector<float>& b) {
                        return broadcast_sum(a, b, x, y, block_size, options);
                      });
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

// Close to 2^31 elements in blocks of 1024. With the reference's 2-D grid the
// kernel runs 1,024,000 threads past 2^31 (the arithmetic is in
// Ex1_NearTwoToThe31Elements), whose index must not wrap.
TEST_P(Ex2Launch, Ex2_NearTwoToThe31Elements) {
  if (on_emulator()) GTEST_SKIP() << kGpuOnlyReason;
  const int side = kNearTwoToThe31Side;
  const std::string what = "broadcast_sum on a " + shape_text(side, side) + " with block size 1024";
  expect_square_sum_correct(rng_, side, what,
                            [&](std::vector<float>& a, const std::vector<float>& b) {
                              return broadcast_sum(a, b, side, side, 1024);
                            });
}

CUDALAB_ON_BOTH_BACKENDS(Ex2Launch);

// The launch arithmetic alone, for sizes the emulator cannot run.
class Ex2LaunchShape : public OnBackend {};

constexpr std::int64_t kMaxGridX = std::numeric_limits<int>::max();  // 2^31 - 1
constexpr std::int64_t kMaxGridYZ = 65535;
constexpr std::int64_t kMaxBlock = 1024;
// Within the limits, with gridDim.z = 1, a grid's thread count fits the
// kernel's 64-bit index.
static_assert(kMaxGridX * kMaxGridYZ * kMaxBlock <= std::numeric_limits<std::int64_t>::max());

// What keeps `launch` from running the exercise 1 kernel (64-bit index, blocks
// numbered row by row through gridDim.x and gridDim.y) once per element of
// `size`, in blocks of `block_size` on any GPU; "" if nothing.
std::string launch_problem(const harness::LaunchDims& launch, std::int64_t size, int block_size) {
  const harness::Dims3& grid = launch.grid;
  const harness::Dims3& block = launch.block;
  if (block.x != static_cast<unsigned>(block_size) || block.y != 1 || block.z != 1) {
    return "the block must be (block_size, 1, 1): the kernel counts blockDim.x threads per block";
  }
  if (grid.z != 1) {
    return "gridDim.z must be 1: the kernel numbers blocks through x and y only, so each further "
           "layer of blocks adds b to every element again";
  }
  if (grid.x < 1 || grid.x > kMaxGridX) return "gridDim.x must be in [1, 2^31 - 1]";
  if (grid.y < 1 || grid.y > kMaxGridYZ) return "gridDim.y must be in [1, 65535]";
  const std::int64_t threads = std::int64_t{grid.x} * grid.y * block.x;
  if (threads < size) {
    return "the grid holds " + std::to_string(threads) + " threads, fewer than the elements";
  }
  return "";
}

// The sizes to try for one block size: near INT_MAX (INT_MAX itself, a
// prime; 2^31 - 2; the largest square, 46337^2; the largest with a full last
// block and the largest with one thread in it), and where a grid of at most
// 65535 blocks per row needs a second row.
std::vector<std::int64_t> sizes_to_try(int block_size) {
  constexpr std::int64_t kIntMax = std::numeric_limits<int>::max();
  const std::int64_t full_last_block = kIntMax - kIntMax % block_size;
  const std::int64_t one_thread_in_last_block =
      full_last_block + 1 <= kIntMax ? full_last_block + 1 : full_last_block - block_size + 1;
  const std::int64_t one_row = kMaxGridYZ * block_size;
  // Where float stops counting exactly (2^24 + 1 and 2^30 + 1 round down to
  // a power of two): launch arithmetic done in float misses the last block.
  constexpr std::int64_t kPastFloat = (std::int64_t{1} << 24) + 1;
  constexpr std::int64_t kFarPastFloat = (std::int64_t{1} << 30) + 1;
  return {kIntMax, kIntMax - 1, 46337LL * 46337, full_last_block, one_thread_in_last_block,
          one_row, one_row + 1, kPastFloat,      kPastFloat + 2,  kFarPastFloat};
}

TEST_P(Ex2LaunchShape, Ex2_LaunchShapeCoversSizesUpToIntMax) {
  for (int block_size = 1; block_size <= kMaxBlock; ++block_size) {
    for (const std::int64_t size : sizes_to_try(block_size)) {
      const std::string call = "broadcast_sum_launch_shape(" + std::to_string(size) + ", " +
                               std::to_string(block_size) + ")";
      harness::LaunchDims launch;
      try {
        launch = backend().call(harness::entry::broadcast_sum_launch_shape, static_cast<int>(size),
                                block_size);
      } catch (const std::exception& e) {
        FAIL() << call << " threw: " << e.what();
      }
      const std::string problem = launch_problem(launch, size, block_size);
      if (!problem.empty()) {
        FAIL() << call << " gave grid (" << launch.grid.x << ", " << launch.grid.y << ", "
               << launch.grid.z << "), block (" << launch.block.x << ", " << launch.block.y << ", "
               << launch.block.z << "): " << problem;
      }
    }
  }
}

CUDALAB_ON_EMULATOR_ONLY(Ex2LaunchShape);

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
