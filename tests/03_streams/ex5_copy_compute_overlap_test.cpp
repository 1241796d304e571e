// Exercise 5: copy/compute overlap. The student's pipeline (chunk_of,
// enqueue_chunk, pipeline):
//   * gives compute_element's bits for every element, for sizes and chunk
//     counts that do not divide (n = 1, primes, more chunks than elements);
//   * chunk_of gives the handout's chunks exactly, also where float or int
//     arithmetic would not (n above 2^24 up to 2^30, chunk counts up to
//     INT_MAX), and they tile [0, n);
//   * with 2 or more streams, chunks on different streams run at the same
//     time (the emulator's modelled timeline; on the GPU the timeline of the
//     same run) and 8 streams take at most 0.8x the time of one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "cudalab/harness/run_log.hpp"
#include "lab03_test_support.hpp"

namespace lab03 {
namespace {

using cudalab::harness::ran;

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

// The handout's chunk c of n elements in `chunks`, in 64-bit arithmetic.
harness::ChunkRange expected_chunk(long long n, long long chunks, long long c) {
  const long long per_chunk = (n + chunks - 1) / chunks;
  const long long begin = std::min(c * per_chunk, n);
  return {static_cast<int>(begin), static_cast<int>(std::min(begin + per_chunk, n) - begin)};
}

class Ex5CopyComputeOverlap : public OnBackend {};

TEST_P(Ex5CopyComputeOverlap, Ex5_ChunksAreExactForEverySize) {
  constexpr int kMaxN = 1 << 30, kIntMax = std::numeric_limits<int>::max();
  std::vector<std::pair<int, int>> cases = {{1, 1},
                                            {1, 4},
                                            {7, 3},
                                            {5, 7},
                                            {1000, 7},
                                            {(1 << 24) + 1, 1},
                                            {(1 << 24) + 3, 2},
                                            {(1 << 25) + 5, 4},
                                            {kMaxN - 1, 1},
                                            {kMaxN, 3},
                                            {kMaxN, 7},
                                            {kMaxN, kMaxN + 1},
                                            {kMaxN, kIntMax},
                                            {1, kIntMax}};
  for (int i = 0; i < 20; ++i) {  // fresh sizes near the top of the range
    cases.emplace_back(kMaxN - static_cast<int>(rng_.next_below(1 << 24)),
                       1 + static_cast<int>(rng_.next_below(100)));
  }
  for (const auto& [n, chunks] : cases) {
    SCOPED_TRACE("chunk_of(" + std::to_string(n) + ", " + std::to_string(chunks) + ", c)");
    std::vector<int> cs = {0, 1, chunks / 2, chunks - 2, chunks - 1};
    if (chunks <= 100) {
      cs.clear();
      for (int c = 0; c < chunks; ++c) cs.push_back(c);
    }
    long long covered = 0;
    for (const int c : cs) {
      if (c < 0) continue;
      const harness::ChunkRange got = backend().call(harness::entry::chunk_of, n, chunks, c);
      const harness::ChunkRange want = expected_chunk(n, chunks, c);
      ASSERT_TRUE(got.begin == want.begin && got.count == want.count)
          << "chunk " << c << ": [" << got.begin << ", +" << got.count << "), the handout's ["
          << want.begin << ", +" << want.count << ")";
      covered += got.count;
    }
    if (chunks <= 100) {
      EXPECT_EQ(covered, static_cast<long long>(n)) << "the chunks must cover [0, n) once";
    }
  }
}

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
