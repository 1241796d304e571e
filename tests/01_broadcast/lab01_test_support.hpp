// What every lab 01 test file shares on top of cudalab/harness/testing.hpp:
// the fixture bound to lab 01's backends, and the checks every broadcast_sum
// variant must pass.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "backend.hpp"
#include "cudalab/half_bits.hpp"
#include "cudalab/harness/testing.hpp"
#include "reference.hpp"

namespace lab01::testing {

using cudalab::harness::launch_text;
using cudalab::harness::matches;
using cudalab::harness::note;
using cudalab::harness::nothing_written_outside;
using cudalab::harness::ran;
using harness::Backend;
using harness::Observation;
using harness::RunOptions;
using harness::Shape;

using OnBackend =
    cudalab::harness::OnBackend<Backend, harness::make_emulator_backend, harness::make_gpu_backend,
                                harness::make_reference_emulator_backend,
                                harness::make_reference_gpu_backend>;

// Every element of an output of `y` columns written by exactly one thread
// (emulator trace); y = 0 reports flat indices.
inline ::testing::AssertionResult written_exactly_once(
    const cudalab::harness::CoverageSummary& coverage, int y, const std::string& what) {
  std::vector<std::size_t> shape;
  if (y > 0) shape = {coverage.elements / static_cast<std::size_t>(y), static_cast<std::size_t>(y)};
  return cudalab::harness::written_exactly_once(coverage, shape, what);
}

// What every broadcast_sum variant must get right once it ran: the values of
// the (x, y) matrix `a`, no write outside it, and on the emulator each
// element written by exactly one thread.
inline void expect_broadcast_sum_correct(const Observation& run, const std::vector<float>& a,
                                         const std::vector<float>& expected, int x, int y,
                                         const std::string& what) {
  EXPECT_TRUE(
      matches(a, expected, {static_cast<std::size_t>(x), static_cast<std::size_t>(y)}, what));
  EXPECT_TRUE(nothing_written_outside(run, what));
  if (run.coverage) {
    EXPECT_TRUE(written_exactly_once(*run.coverage, y, what));
  }
}

// A note for `./lab run 01` with the GPU time and bandwidth of a timed call
// that moved `bytes`; nothing on the emulator.
inline void note_gpu_time(const Observation& run, const std::string& what, double bytes) {
  if (!run.kernel_ms || !run.kernel_ms_is_gpu_time || *run.kernel_ms <= 0) return;
  char text[160];
  std::snprintf(text, sizeof text, "%s: GPU time %.3f ms (%.0f GB/s)", what.c_str(), *run.kernel_ms,
                bytes / *run.kernel_ms / 1e6);
  note(text);
}

// "stores: 4.00 sectors per warp request (max 4), efficiency 100%"
inline void note_store_sectors(const Observation& run, const std::string& what) {
  if (!run.stores || run.stores->requests == 0) return;
  char text[200];
  std::snprintf(text, sizeof text,
                "%s: stores %.2f sectors per warp request (max %u), efficiency %.0f%%",
                what.c_str(), run.stores->sectors_per_request(), run.stores->max_sectors,
                100 * run.stores->efficiency);
  note(text);
}

inline std::string shape_text(int x, int y) {
  return "(" + std::to_string(x) + ", " + std::to_string(y) + ")";
}

// "broadcast_sum on a (3, 17) with block size 96", for messages.
inline std::string run_text(const std::string& name, int x, int y, int block_size) {
  return name + " on a " + shape_text(x, y) + " with block size " + std::to_string(block_size);
}

// Runs `call(a, b)` on a random (x, y) matrix a and a b of nonzero values,
// checks it as every broadcast_sum variant is checked, notes the GPU time
// and returns the run; `what` names it in messages.
template <class Call>
Observation run_broadcast_sum(cudalab::Random& rng, int x, int y, const std::string& what,
                              Call&& call) {
  const auto size = static_cast<std::size_t>(x) * static_cast<std::size_t>(y);
  std::vector<float> a = rng.uniform(size, -1.0f, 1.0f);
  const std::vector<float> b = harness::nonzero_values(rng, static_cast<std::size_t>(y));
  const std::vector<float> expected = harness::broadcast_sum_reference(a, b, x, y);
  const Observation run = call(a, b);
  EXPECT_TRUE(ran(run)) << what;
  if (run.failed()) return run;
  expect_broadcast_sum_correct(run, a, expected, x, y, what);
  note_gpu_time(run, what, 4.0 * (2.0 * static_cast<double>(size) + y));
  return run;
}

}  // namespace lab01::testing
