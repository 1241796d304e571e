// Exercise 5: the float4 version. Every alignment of a (its view starts 0-3
// floats into the allocation), sizes that are not multiples of 4, rows that
// are not multiples of 4; on the emulator, the body must move 16 bytes per
// access and no 16-byte access may be misaligned (a GPU faults on those).
#include <gtest/gtest.h>

#include <algorithm>

#include "lab01_test_support.hpp"

namespace lab01::testing {
namespace {

// The classic mistake of this exercise, in its words: a float4 access whose
// address is not a multiple of 16 bytes (the GPU stops the kernel with
// cudaErrorMisalignedAddress; the emulator reports it the same way).
::testing::AssertionResult no_misaligned_access(const Observation& run, const std::string& what) {
  const auto misaligned = [](const std::string& text) {
    return text.find("isaligned") != std::string::npos;
  };
  const bool in_reports = std::any_of(run.reports.begin(), run.reports.end(), misaligned);
  if (!in_reports && !misaligned(run.error)) return ::testing::AssertionSuccess();
  auto failure = ::testing::AssertionFailure()
                 << what
                 << ": misaligned float4 access (a misaligned write or read). A float4 access must "
                    "start at a multiple of 16 "
                 << "bytes; the elements before the first 16-byte boundary need single-float "
                    "accesses.";
  if (!run.reports.empty()) failure << "\n" << run.reports.front();
  return failure;
}

class Ex5Vectorized : public OnBackend {
 protected:
  Observation run_and_check(int x, int y, int offset, int block_size,
                            const RunOptions& options = {}) {
    if (HasFailure()) return {};  // report the first failing case only
    const auto size = static_cast<std::size_t>(x) * static_cast<std::size_t>(y);
    std::vector<float> a = rng_.uniform(size, -1.0f, 1.0f);
    const std::vector<float> b = harness::nonzero_values(rng_, static_cast<std::size_t>(y));
    const std::vector<float> expected = harness::broadcast_sum_reference(a, b, x, y);
    const std::string what = "broadcast_sum_vec4 on a " + shape_text(x, y) + " starting " +
                             std::to_string(offset) + " floats after a 16-byte boundary, block " +
                             std::to_string(block_size);
    const Observation run = backend().call(harness::entry::broadcast_sum_vec4,
                                           harness::Out<float>(a, static_cast<std::size_t>(offset)),
                                           b, x, y, block_size, options);
    EXPECT_TRUE(no_misaligned_access(run, what));
    EXPECT_TRUE(ran(run)) << what;
    expect_broadcast_sum_correct(run, a, expected, x, y, what);
    note_gpu_time(run, what, 4.0 * (2.0 * static_cast<double>(size) + y));
    return run;
  }
};

TEST_P(Ex5Vectorized, Ex5_TailsAndEveryAlignment) {
  // Rows of 1, 2 and 3 floats put several rows in one float4, at every start.
  const int shapes[][2] = {{1, 1},  {1, 2}, {1, 3}, {1, 4},  {1, 5},   {3, 7},
                           {7, 3},  {5, 8}, {2, 6}, {9, 1},  {6, 2},   {7, 2},
                           {11, 3}, {4, 3}, {2, 1}, {13, 2}, {17, 31}, {33, 1029}};
  for (const auto& shape : shapes) {
    for (int offset = 0; offset < 4; ++offset) {
      for (int block_size : {1, 32, 256}) run_and_check(shape[0], shape[1], offset, block_size);
    }
  }
}

TEST_P(Ex5Vectorized, Ex5_ZeroSize) {
  run_and_check(0, 6, 1, 128);
  run_and_check(5, 0, 0, 128);
}

TEST_P(Ex5Vectorized, Ex5_LargeShape) {
  if (on_emulator()) {
    run_and_check(1031, 2039, 3, 256);
  } else {
    RunOptions timed;
    timed.time = true;
    run_and_check(8191, 8209, 1, 256, timed);  // 269 MB
  }
}

CUDALAB_ON_BOTH_BACKENDS(Ex5Vectorized);

class Ex5Accesses : public Ex5Vectorized {};

TEST_P(Ex5Accesses, Ex5_BodyMoves16BytesPerAccess) {
  RunOptions options;
  options.trace = true;
  const int shapes[][2] = {{64, 1030}, {9, 7}, {1, 4}};
  for (const auto& shape : shapes) {
    for (int offset = 0; offset < 4; ++offset) {
      const Observation run = run_and_check(shape[0], shape[1], offset, 128, options);
      ASSERT_TRUE(run.write_widths.has_value());
      const auto& widths = *run.write_widths;
      const std::string where = "a " + shape_text(shape[0], shape[1]) + " starting " +
                                std::to_string(offset) + " floats after a 16-byte boundary";
      EXPECT_EQ(widths.misaligned, 0u)
          << where << ": " << widths.misaligned
          << " misaligned writes, first: " << widths.first_misaligned
          << ". A float4 access must start at a multiple of 16 bytes; the elements before the "
             "first 16-byte boundary need single-float accesses.";
      // The 16-byte boundaries fix the split: head, whole float4s, tail.
      const std::size_t size = static_cast<std::size_t>(shape[0]) * shape[1];
      const std::size_t head = std::min<std::size_t>((4 - offset) % 4, size);
      const std::size_t vectors = (size - head) / 4;
      EXPECT_EQ(widths.vector_writes, vectors)
          << where << ": expected " << vectors << " float4 writes (every whole, aligned group "
          << "of 4 floats after the " << head << " head elements), got " << widths.vector_writes;
      EXPECT_EQ(widths.scalar_writes, size - 4 * vectors)
          << where << ": only the " << head << " head and " << size - head - 4 * vectors
          << " tail elements should be written one float at a time, got " << widths.scalar_writes
          << " single-float writes";
      if (HasFailure()) return;
      EXPECT_EQ(widths.other_writes, 0u) << where << ": writes of neither 4 nor 16 bytes";
      note(where + ": " + std::to_string(widths.vector_writes) + " writes of 16 bytes, " +
           std::to_string(widths.scalar_writes) + " of 4 bytes, none misaligned");
    }
  }
}

CUDALAB_ON_EMULATOR_ONLY(Ex5Accesses);

}  // namespace
}  // namespace lab01::testing
