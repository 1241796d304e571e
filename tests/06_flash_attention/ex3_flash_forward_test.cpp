// Exercise 3: the fused forward in FA2's order (a block of queries per
// program, an inner loop over blocks of keys and values, o kept unscaled
// and divided by l once at the end), returning o and L = m + log(l).
// Against the double-precision reference, both o and L:
//   - n in {1, 5, 15, 16, 17, 31, 32, 33, 100, 257}: below one tile (small
//     public implementations get n < block wrong), at and around tile
//     multiples, and not a multiple of anything; d in {32, 64, 128}; 1 to 3
//     heads; on the GPU also n = 4096 (d 128) and n = 1000 (d 64, 4 heads);
//   - a scale other than 1/sqrt(d) (the scale is a parameter, not derived),
//     and scores in the hundreds (exp overflows without the running max);
//   - NaN propagation as in PyTorch: a NaN in query row i makes o row i and
//     L row i NaN and leaves every other row right; a NaN in value row j
//     makes every o row of that head NaN and leaves L alone (L depends on q
//     and k only).
// On the emulator the trace shows the fusion: one launch, exactly o and L
// stored (no n x n buffer anywhere), each element written once, Q read once
// and K and V once per block of queries, no report (race, out-of-bounds or
// uninitialised read). Bad shapes fail the call and leave the output alone.
// The comparison itself must reject an output with one element off by 1e-3
// relative.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "lab06_test_support.hpp"

namespace lab06 {
namespace {

using cudalab::harness::nothing_written_outside;
using cudalab::harness::Observation;
using cudalab::harness::ran;
using cudalab::harness::RunOptions;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

class Ex3Flash : public OnBackend {
 protected:
  Observation run(const Attention& shape, const Inputs& in, std::vector<float>& out,
                  const RunOptions& options = {}) {
    out.assign(shape.values() + shape.rows(), kNaN);
    return backend().call(harness::entry::flash_forward, shape, in.q, in.k, in.v, out, options);
  }
  void expect_attention(const Attention& shape, const Inputs& in, const std::string& inputs_are) {
    std::vector<float> out;
    const std::string what = "flash_forward, " + describe(shape) + inputs_are;
    const Observation observation = run(shape, in, out);
    ASSERT_TRUE(ran(observation)) << what;
    EXPECT_TRUE(
        flash_output_matches(out, reference_attention(shape, in.q, in.k, in.v), shape, what));
    EXPECT_TRUE(nothing_written_outside(observation, what));
  }
  void expect_attention(const Attention& shape) {
    expect_attention(shape, random_inputs(rng_, shape), "");
  }
};

TEST_P(Ex3Flash, Ex3_SizesAroundTheTiles) {
  for (const Attention& shape :
       sweep({1, 5, 15, 16, 17, 31, 32, 33, 100, 257}, {32, 64, 128}, false, on_emulator())) {
    expect_attention(shape);
    if (HasFailure()) return;
  }
}

// One block of queries and one block of keys cover the whole sequence, and
// the rest of each tile lies past n.
TEST_P(Ex3Flash, Ex3_ShorterThanOneTile) {
  for (const int d : {32, 64, 128}) {
    const auto tile = backend().call(harness::entry::flash_tile, d);
    const int smaller = std::min(tile.query_rows, tile.key_rows);
    for (const int n : {smaller - 1, smaller / 2 + 1}) {
      if (n < 1) continue;
      expect_attention(attention(2, n, d));
      if (HasFailure()) return;
    }
  }
}

TEST_P(Ex3Flash, Ex3_AScaleOtherThanOneOverSqrtD) {
  Attention shape = attention(2, 45, 64);
  shape.scale = 0.3f;
  expect_attention(shape);
}

TEST_P(Ex3Flash, Ex3_LargeScoresNeedTheRunningMaximum) {
  Attention shape = attention(2, 40, 64);
  shape.scale = 1.0f;
  expect_attention(shape, large_score_inputs(rng_, shape),
                   ", integer scores up to 1024: exp overflows unless the running maximum is "
                   "subtracted first");
}

// q[head 1, row 7, column 3] is NaN: o and L of (1, 7) are NaN, every
// other row is right.
TEST_P(Ex3Flash, Ex3_NaNInAQueryRowStaysInThatRow) {
  const Attention shape = attention(2, 37, 32);
  Inputs in = random_inputs(rng_, shape);
  in.q[(1 * 37 + 7) * 32 + 3] = kNaN;
  expect_attention(shape, in, ", q[head 1, row 7, column 3] = NaN");
}

// v[head 0, row 20, column 5] is NaN: every query of head 0 weighs value
// row 20, so all of head 0's o is NaN (as in PyTorch), head 1 is right, and
// L is right everywhere.
TEST_P(Ex3Flash, Ex3_NaNInAValueRowReachesEveryRowOfItsHead) {
  const Attention shape = attention(2, 37, 32);
  Inputs in = random_inputs(rng_, shape);
  in.v[(0 * 37 + 20) * 32 + 5] = kNaN;
  expect_attention(shape, in, ", v[head 0, row 20, column 5] = NaN");
}

TEST_P(Ex3Flash, Ex3_LongSequences) {
  if (on_emulator()) GTEST_SKIP() << "n = 4096 takes too long on the emulator; GPU only";
  expect_attention(attention(1, 4096, 128));
  if (HasFailure()) return;
  expect_attention(attention(4, 1000, 64));
}

// The check is not vacuous: the reference solution's output passes it, and
// the same output with one element of o or of L off by 1e-3 relative, or
// NaN, fails it.
TEST_P(Ex3Flash, Ex3_TheCheckRejectsAPerturbedOutput) {
  const Attention shape = attention(2, 40, 64);
  const Inputs in = random_inputs(rng_, shape);
  const Attended expected = reference_attention(shape, in.q, in.k, in.v);
  std::vector<float> out(shape.values() + shape.rows(), kNaN);
  ASSERT_TRUE(ran(reference().call(harness::entry::flash_forward, shape, in.q, in.k, in.v, out)));
  ASSERT_TRUE(flash_output_matches(out, expected, shape, "the reference solution"));
  const auto largest = [&](std::size_t from, std::size_t to) {
    return std::max_element(out.begin() + std::ptrdiff_t(from), out.begin() + std::ptrdiff_t(to),
                            [](float a, float b) { return std::fabs(a) < std::fabs(b); }) -
           out.begin();
  };
  // The largest |o| and the largest |L|, so the change is far above the
  // absolute part of the tolerance.
  for (const auto e : {largest(0, shape.values()), largest(shape.values(), out.size())}) {
    std::vector<float> perturbed = out;
    perturbed[std::size_t(e)] *= 1.001f;
    EXPECT_FALSE(flash_output_matches(perturbed, expected, shape, "perturbed"))
        << "element " << e << " changed from " << out[std::size_t(e)] << " to "
        << perturbed[std::size_t(e)] << " passed the check";
    perturbed[std::size_t(e)] = kNaN;
    EXPECT_FALSE(flash_output_matches(perturbed, expected, shape, "NaN"))
        << "element " << e << " set to NaN passed the check";
  }
}

// Shapes the kernels do not handle are refused before anything runs, with
// the wrong argument named, and the output keeps its values.
TEST_P(Ex3Flash, Ex3_BadShapesAreRefused) {
  for (const BadShape& bad : bad_shapes()) {
    const Attention& shape = bad.shape;
    const std::vector<float> q(bad.q_values, 0.5f), kv(shape.values(), 0.5f);
    const std::vector<float> untouched(shape.values() + shape.rows(), 7.0f);
    std::vector<float> out = untouched;
    const std::string what = "flash_forward with " + bad.what;
    EXPECT_TRUE(refused(
        [&] { return backend().call(harness::entry::flash_forward, shape, q, kv, kv, out); },
        bad.names, what));
    EXPECT_EQ(out, untouched) << what << ": the output changed although the call was refused";
  }
}

CUDALAB_ON_BOTH_BACKENDS(Ex3Flash);

// What the emulator saw of the fused kernel's memory traffic.
class Ex3Trace : public Ex3Flash {};

TEST_P(Ex3Trace, Ex3_OneKernelThatStoresOnlyOAndL) {
  for (const auto& [heads, n, d] : {std::array{2, 37, 32}, std::array{1, 100, 64}}) {
    const Attention shape = attention(heads, n, d);
    const Inputs in = random_inputs(rng_, shape);
    std::vector<float> out;
    const std::string what = "flash_forward, " + describe(shape);
    const Observation observation = run(shape, in, out, RunOptions{.trace = true});
    ASSERT_TRUE(ran(observation)) << what;
    ASSERT_TRUE(observation.launches && observation.coverage && observation.loads)
        << what << ": the call was not traced";
    EXPECT_EQ(*observation.launches, 1) << what << ": the fused forward is one kernel launch";
    EXPECT_TRUE(stored_bytes(observation, flash_store_bytes(shape), what,
                             "4 bytes x (o's heads x n x d + L's heads x n): nothing else may "
                             "go to global memory, no n x n scores, no partial o"));
    EXPECT_TRUE(cudalab::harness::written_exactly_once(*observation.coverage, {}, what));
    EXPECT_TRUE(observation.reports.empty())
        << what << ": the emulator reported " << observation.report_count
        << " problem(s); first: " << (observation.reports.empty() ? "" : observation.reports[0]);
    const auto tile = backend().call(harness::entry::flash_tile, d);
    EXPECT_EQ(observation.loads->bytes, flash_load_bytes(shape, tile))
        << what << ": the kernel read " << observation.loads->bytes
        << " bytes from global memory; reading Q once and K and V once per block of "
        << tile.query_rows << " queries (keys 0 to n - 1, nothing past n) is "
        << flash_load_bytes(shape, tile)
        << " (more: a tile loaded twice, or rows past n; fewer: keys skipped)";
    EXPECT_TRUE(
        flash_output_matches(out, reference_attention(shape, in.q, in.k, in.v), shape, what));
    if (HasFailure()) return;
  }
}

CUDALAB_ON_EMULATOR_ONLY(Ex3Trace);

}  // namespace
}  // namespace lab06
