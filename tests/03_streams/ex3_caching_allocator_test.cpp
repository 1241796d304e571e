// Exercise 3: a caching allocator with record_stream. The student's
// CachingAllocator:
//   * reuses a freed block at once on its own stream, never on another
//     stream and never for another size;
//   * the lecture's hazard (A freed while a side stream still sums it, B of
//     the same size allocated and written on the default stream): with
//     record_stream(A, side) the sum is right and the race checker is quiet;
//     on the GPU, with the side stream's sum delayed 20 ms, B is not A's
//     block; without record_stream the emulator reports the race (the
//     skeleton);
//   * with the other guard (the default stream waits for the side stream
//     before the free) B is A's block again, and the sum is right;
//   * over 1000 rounds of allocate, use on two streams, record_stream,
//     free, the reserved memory stays at two blocks or less.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>

#include "lab03_test_support.hpp"

namespace lab03 {
namespace {

using cudalab::harness::ran;

const bool titled =
    cudalab::harness::describe_exercise(3, "A caching allocator with record_stream");

constexpr int kCount = 4099;  // A's floats: a prime, not a multiple of the 512-byte rounding

class Ex3CachingAllocator : public OnBackend {
 protected:
  double consumer_delay_ms() const { return on_emulator() ? 1.0 : 20.0; }
};

TEST_P(Ex3CachingAllocator, Ex3_FreedBlocksAreReusedOnTheirOwnStreamOnly) {
  for (std::size_t bytes : {std::size_t{1}, std::size_t{4096}, std::size_t{100003}}) {
    SCOPED_TRACE(std::to_string(bytes) + " bytes");
    const harness::AllocatorReuse r = backend().allocator_reuse(bytes);
    EXPECT_TRUE(r.same_stream_reuses) << "freed on s, allocated again on s: the same block";
    EXPECT_FALSE(r.other_stream_reuses) << "a block freed on s must not go to stream t";
    EXPECT_FALSE(r.other_size_reuses) << "a larger request must not get the smaller block";
    EXPECT_GE(r.reserved_after, 2 * bytes);
  }
}

TEST_P(Ex3CachingAllocator, Ex3_RecordStreamKeepsTheBlockFromTheNextTensor) {
  const harness::ReuseHazard r =
      backend().reuse_hazard(kCount, ReuseGuard::record_stream, consumer_delay_ms());
  ASSERT_TRUE(ran(r.observation));
  EXPECT_EQ(r.sum, r.expected) << "the next tensor overwrote A while the side stream summed it";
  EXPECT_TRUE(r.observation.reports.empty()) << reports_text(r.observation);
  if (!on_emulator()) {
    // (On the emulator cudaEventQuery runs the queued work, so the block may
    // be free again at once.)
    EXPECT_FALSE(r.pointer_reused)
        << "the side stream's sum was still running: A's block must wait for it";
  }
}

TEST_P(Ex3CachingAllocator, Ex3_WaitStreamStillReusesTheBlock) {
  const harness::ReuseHazard r =
      backend().reuse_hazard(kCount, ReuseGuard::wait_stream, consumer_delay_ms());
  ASSERT_TRUE(ran(r.observation));
  EXPECT_EQ(r.sum, r.expected);
  EXPECT_TRUE(r.observation.reports.empty()) << reports_text(r.observation);
  EXPECT_TRUE(r.pointer_reused) << "stream order protects A here: the default stream waits for "
                                   "the side stream, so its next tensor may take A's block at once";
}

TEST_P(Ex3CachingAllocator, Ex3_WithoutAGuardTheRaceCheckerSeesTheHazard) {
  if (!on_emulator()) GTEST_SKIP() << "the race checker is the emulator's";
  expect_reports();
  const harness::ReuseHazard r = backend().reuse_hazard(kCount, ReuseGuard::none, 1.0);
  ASSERT_TRUE(ran(r.observation));
  EXPECT_TRUE(r.pointer_reused) << "freed on the default stream, A's block is reused there at once";
  EXPECT_TRUE(race_between(r.observation, "fill_kernel", "sum_kernel"));
}

TEST_P(Ex3CachingAllocator, Ex3_ReservedMemoryStaysBounded) {
  const std::vector<std::size_t> reserved = backend().reserved_over_iterations(1000, 256);
  ASSERT_EQ(reserved.size(), 1000u);
  const std::size_t most = *std::max_element(reserved.begin(), reserved.end());
  EXPECT_GE(most, 256 * sizeof(float));
  EXPECT_LE(most, 2 * 1024u) << "after round "
                             << (std::max_element(reserved.begin(), reserved.end()) -
                                 reserved.begin())
                             << ": blocks whose events completed must be reused";
}

CUDALAB_ON_BOTH_BACKENDS(Ex3CachingAllocator);

}  // namespace
}  // namespace lab03
