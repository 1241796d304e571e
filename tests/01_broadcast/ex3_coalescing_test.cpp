// Exercise 3: the coalesced mapping. Same result as exercise 2; on the
// emulator, each warp's stores to a must touch at most four 32-byte sectors
// (32 lanes x 4 bytes = 128 bytes), where the lecture's row-fastest mapping
// has every lane in a sector of its own. The student's kernel runs on the
// reference's launch shape (the shape is exercise 2's).
#include <gtest/gtest.h>

#include "lab01_test_support.hpp"
#include "near_two_to_the_31.hpp"

namespace lab01::testing {
namespace {

class Ex3Coalesced : public OnBackend {
 protected:
  // The student's kernel on the reference's launch shape. Zero elements go
  // through the student's broadcast_sum_coalesced, which must launch nothing.
  Observation broadcast_sum_coalesced(std::vector<float>& a, const std::vector<float>& b, int x,
                                      int y, int block_size, const RunOptions& options = {}) {
    if (x == 0 || y == 0) {
      return backend().call(harness::entry::broadcast_sum_coalesced, a, b, x, y, block_size,
                            options);
    }
    const harness::LaunchDims launch =
        reference().call(harness::entry::broadcast_sum_launch_shape, x * y, block_size);
    return backend().call(harness::entry::broadcast_sum_coalesced_on, a, b, x, y, launch, options);
  }

  Observation run_and_check(int x, int y, int block_size, const RunOptions& options = {}) {
    if (HasFailure()) return {};  // report the first failing case only
    const std::string what = run_text("broadcast_sum_coalesced", x, y, block_size);
    const Observation run = run_broadcast_sum(
        rng_, x, y, what, [&](std::vector<float>& a, const std::vector<float>& b) {
          return broadcast_sum_coalesced(a, b, x, y, block_size, options);
        });
    note_store_sectors(run, what);
    return run;
  }
};

TEST_P(Ex3Coalesced, Ex3_AnyShapeAnyBlockSize) {
  const int shapes[][2] = {{1, 1}, {1, 1000}, {1000, 1}, {17, 31}, {127, 129}, {513, 1023}};
  for (const auto& shape : shapes) {
    for (int block_size : {32, 96, 256, 1024}) run_and_check(shape[0], shape[1], block_size);
  }
  run_and_check(0, 5, 128);
}

TEST_P(Ex3Coalesced, Ex3_MoreThan65535Blocks) {
  if (on_emulator()) {
    run_and_check(2039, 1031, 32);
  } else {
    RunOptions timed;
    timed.time = true;
    run_and_check(8191, 8209, 256, timed);  // 269 MB, 262,657 blocks
  }
}

// Close to 2^31 elements in blocks of 1024: the reference's 2-D grid holds
// 2,148,507,648 threads, 1,024,000 more than 2^31 (the arithmetic is in
// Ex1_NearTwoToThe31Elements). As an int, their index is negative and passes
// `i >= size`, and they write a[i], 8 GB before a: an illegal-address fault
// on the GPU, unless other memory of the process lies there.
TEST_P(Ex3Coalesced, Ex3_NearTwoToThe31Elements) {
  if (on_emulator()) GTEST_SKIP() << kGpuOnlyReason;
  const int side = kNearTwoToThe31Side;
  const std::string what =
      "broadcast_sum_coalesced on a " + shape_text(side, side) + " with block size 1024";
  expect_square_sum_correct(rng_, side, what,
                            [&](std::vector<float>& a, const std::vector<float>& b) {
                              return broadcast_sum_coalesced(a, b, side, side, 1024);
                            });
}

CUDALAB_ON_BOTH_BACKENDS(Ex3Coalesced);

class Ex3Sectors : public Ex3Coalesced {};

TEST_P(Ex3Sectors, Ex3_StoresTouchAtMostFourSectorsPerWarp) {
  RunOptions options;
  options.trace = true;
  const int shapes[][2] = {{64, 96}, {33, 250}, {200, 7}};
  for (const auto& shape : shapes) {
    const Observation run = run_and_check(shape[0], shape[1], 128, options);
    ASSERT_TRUE(run.stores.has_value());
    ASSERT_GT(run.stores->requests, 0u) << "the kernel stored nothing to a";
    EXPECT_LE(run.stores->max_sectors, 4u)
        << "a " << shape_text(shape[0], shape[1])
        << ": a warp's 32 stores of 4 bytes touched up to " << run.stores->max_sectors
        << " 32-byte sectors (" << run.stores->sectors_per_request()
        << " per request on average). Coalesced stores need 4: consecutive threads must write "
           "consecutive elements of a. The lecture's mapping (thread i -> row i % x) puts "
           "neighbouring threads y floats apart, one sector each.";
    if (HasFailure()) return;
  }
}

CUDALAB_ON_EMULATOR_ONLY(Ex3Sectors);

}  // namespace
}  // namespace lab01::testing
