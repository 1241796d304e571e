// Exercise 5: copy/compute overlap. The student's pipeline (chunk_of,
// enqueue_chunk, pipeline):
//   * gives compute_element's bits for every element, for sizes and chunk
//     counts that do not divide (n = 1, primes, more chunks than elements);
//   * with 2 or more streams, chunks on different streams run at the same
//     time (the emulator's modelled timeline; on the GPU the timeline of the
//     same run) and 8 streams take at most 0.8x the time of one.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "cudalab/harness/run_log.hpp"
#include "lab03_test_support.hpp"

namespace lab03 {
namespace {

using cudalab::harness::ran;

const bool titled = cudalab::harness::describe_exercise(5, "Copy/compute overlap");

// What compute_kernel gives: fmaf rounds once, as the GPU's FMA does.
std::vector<float> expected_output(const std::vector<float>& in, int iterations) {
  std::vector<float> out(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    float x = in[i];
    for (int k = 0; k < iterations; ++k) x = std::fmaf(x, 0.999f, 0.001f);
    out[i] = x;
  }
  return out;
}

class Ex5CopyComputeOverlap : public OnBackend {};

TEST_P(Ex5CopyComputeOverlap, Ex5_EveryElementForAwkwardSizes) {
  struct Case {
    int n, chunks, streams;
  };
  const Case cases[] = {{1, 1, 1},    {1, 4, 3},     {7, 3, 2},      {5, 7, 4},     {1009, 8, 8},
                        {1000, 7, 3}, {4099, 16, 5}, {10007, 10, 1}, {65537, 3, 8}, {100003, 9, 4}};
  for (const Case& c : cases) {
    for (bool timeline : {false, true}) {
      SCOPED_TRACE("n " + std::to_string(c.n) + ", " + std::to_string(c.chunks) + " chunks, " +
                   std::to_string(c.streams) + " streams" + (timeline ? ", timed per chunk" : ""));
      const std::vector<float> in = rng_.uniform(static_cast<std::size_t>(c.n), -4.0f, 4.0f);
      const harness::Pipeline r = backend().pipeline(in, c.chunks, c.streams, 3, timeline);
      ASSERT_TRUE(ran(r.observation));
      ASSERT_TRUE(cudalab::harness::matches(r.out, expected_output(in, 3),
                                            {static_cast<std::size_t>(c.n)}, "pipeline"));
    }
  }
}

TEST_P(Ex5CopyComputeOverlap, Ex5_StreamsOverlapChunks) {
  const int n = on_emulator() ? 1 << 16 : 1 << 24;
  const int iterations = on_emulator() ? 2 : 2000;  // the GPU: compute about as long as a copy
  const int chunks = 8;
  const std::vector<float> in = rng_.uniform(static_cast<std::size_t>(n), -4.0f, 4.0f);
  backend().pipeline(in, chunks, 1, iterations, false);  // warm-up
  const harness::Pipeline one = backend().pipeline(in, chunks, 1, iterations, true);
  ASSERT_TRUE(ran(one.observation));
  for (std::size_t i = 0; i + 1 < one.spans.size(); ++i) {
    EXPECT_FALSE(overlap(one.spans[i], one.spans[i + 1]))
        << "one stream runs one chunk at a time" << describe(one.spans);
  }
  for (int streams : {2, 4, 8}) {
    SCOPED_TRACE(std::to_string(streams) + " streams");
    const harness::Pipeline r = backend().pipeline(in, chunks, streams, iterations, true);
    ASSERT_TRUE(ran(r.observation));
    ASSERT_EQ(r.spans.size(), static_cast<std::size_t>(chunks)) << describe(r.spans);
    bool overlapping = false;
    for (std::size_t i = 0; i < r.spans.size(); ++i) {
      for (std::size_t j = i + 1; j < r.spans.size(); ++j) {
        overlapping |= r.spans[i].row != r.spans[j].row && overlap(r.spans[i], r.spans[j]);
      }
    }
    EXPECT_TRUE(overlapping) << "no two chunks of different streams overlap" << describe(r.spans);
  }
  const harness::Pipeline eight = backend().pipeline(in, chunks, 8, iterations, false);
  const harness::Pipeline serial = backend().pipeline(in, chunks, 1, iterations, false);
  ASSERT_TRUE(ran(eight.observation));
  ASSERT_TRUE(ran(serial.observation));
  EXPECT_LE(eight.total_ms, 0.8 * serial.total_ms)
      << "8 streams took " << eight.total_ms << " ms, 1 stream " << serial.total_ms << " ms";
  cudalab::harness::note("pipeline, " + std::to_string(chunks) + " chunks: 1 stream " +
                         std::to_string(serial.total_ms) + " ms, 8 streams " +
                         std::to_string(eight.total_ms) + " ms");
}

CUDALAB_ON_BOTH_BACKENDS(Ex5CopyComputeOverlap);

}  // namespace
}  // namespace lab03
