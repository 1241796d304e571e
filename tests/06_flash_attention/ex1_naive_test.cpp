// Exercise 1: naive attention in three kernels (S = scale q k^T, the row
// softmax of S in place, o = P v) through the n x n scores in global memory.
// Against the double-precision reference for every n in {1, 17, 100, 257}
// (one row, a prime, sizes around the usual block widths) with every d in
// {32, 64, 128}, with 1 to 3 heads (a head offset forgotten or mixed up with
// a row offset gives another head's values); o starts as NaN so that an
// unwritten element fails. Scores in the hundreds, where exp overflows
// unless the softmax subtracts the row's maximum, and in the negative
// hundreds, where it underflows unless that maximum (not 0) is subtracted.
// On the GPU also n = 1024. Bad shapes (d = 48, no heads, n = 0, q too
// short) are refused and leave o alone. On the emulator the trace shows the
// three launches and the stores of the naive algorithm: the scores written
// by the first kernel and again by the softmax, then o. Causal naive
// attention is exercise 4's (the naive kernels share its mask).
#include <gtest/gtest.h>

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

class Ex1Naive : public OnBackend {
 protected:
  Observation run(const Attention& shape, const Inputs& in, std::vector<float>& o,
                  const RunOptions& options = {}) {
    o.assign(shape.values(), kNaN);
    return naive_attention(backend(), shape, in.q, in.k, in.v, o, options);
  }
  void expect_attention(const Attention& shape) {
    expect_attention(shape, random_inputs(rng_, shape), "");
  }
  void expect_attention(const Attention& shape, const Inputs& in, const std::string& inputs_are) {
    std::vector<float> o;
    const std::string what = "naive_attention, " + describe(shape) + inputs_are;
    const Observation observation = run(shape, in, o);
    ASSERT_TRUE(ran(observation)) << what;
    EXPECT_TRUE(o_matches(o, reference_attention(shape, in.q, in.k, in.v), shape, what));
    EXPECT_TRUE(nothing_written_outside(observation, what));
  }
};

TEST_P(Ex1Naive, Ex1_EverySizeAndHeadDimension) {
  for (const Attention& shape : sweep({1, 17, 100, 257}, {32, 64, 128}, false, on_emulator())) {
    expect_attention(shape);
    if (HasFailure()) return;
  }
}

TEST_P(Ex1Naive, Ex1_LargeScoresNeedTheRowMaximum) {
  Attention shape = attention(2, 40, 64);
  shape.scale = 1.0f;
  expect_attention(shape, large_score_inputs(rng_, shape),
                   ", integer scores up to 1024: exp overflows unless the row's maximum is "
                   "subtracted first");
}

// q's values integers in [-4, -2] and k's in [2, 4]: every score (at scale
// 1) is an exact integer at most -4 d, where exp underflows to 0. Only the
// row's real maximum subtracted (not 0, not nothing) leaves a nonzero sum.
TEST_P(Ex1Naive, Ex1_LargeNegativeScoresNeedTheRowMaximum) {
  Attention shape = attention(2, 40, 64);
  shape.scale = 1.0f;
  const auto integers = [&](int lo, int hi) {
    const auto values = rng_.uniform(shape.values(), lo, hi);
    return std::vector<float>(values.begin(), values.end());
  };
  Inputs in{integers(-4, -2), integers(2, 4), rng_.uniform(shape.values(), -1.0f, 1.0f)};
  expect_attention(shape, in,
                   ", integer scores from -1024 to -256: exp underflows unless the row's "
                   "maximum is subtracted first");
}

TEST_P(Ex1Naive, Ex1_LongerSequence) {
  if (on_emulator()) GTEST_SKIP() << "n = 1024 takes minutes on the emulator; GPU only";
  expect_attention(attention(2, 1024, 64));
}

// Shapes the kernels do not handle are refused before anything runs, with
// the wrong argument named, and o keeps its values.
TEST_P(Ex1Naive, Ex1_BadShapesAreRefused) {
  for (const BadShape& bad : bad_shapes()) {
    const Attention& shape = bad.shape;
    const std::vector<float> q(bad.q_values, 0.5f), kv(shape.values(), 0.5f);
    const std::vector<float> untouched(shape.values(), 7.0f);
    std::vector<float> o = untouched;
    const std::string what = "naive_attention with " + bad.what;
    EXPECT_TRUE(
        refused([&] { return naive_attention(backend(), shape, q, kv, kv, o); }, bad.names, what));
    EXPECT_EQ(o, untouched) << what << ": o changed although the call was refused";
  }
}

CUDALAB_ON_BOTH_BACKENDS(Ex1Naive);

class Ex1Trace : public Ex1Naive {};

TEST_P(Ex1Trace, Ex1_ThreeKernelsThroughTheScores) {
  const Attention shape = attention(2, 33, 32);
  const Inputs in = random_inputs(rng_, shape);
  std::vector<float> o;
  const std::string what = "naive_attention, " + describe(shape);
  const Observation observation = run(shape, in, o, RunOptions{.trace = true});
  ASSERT_TRUE(ran(observation)) << what;
  ASSERT_TRUE(observation.launches.has_value()) << what << ": the call was not traced";
  EXPECT_EQ(*observation.launches, 3)
      << what << ": naive attention is three kernel launches (scores, softmax, P v), each "
      << "covering every head";
  EXPECT_TRUE(stored_bytes(observation, naive_store_bytes(shape), what,
                           "4 bytes x heads x (n x n scores, the same n x n again as "
                           "probabilities, n x d of o)"));
  EXPECT_TRUE(o_matches(o, reference_attention(shape, in.q, in.k, in.v), shape, what));
}

CUDALAB_ON_EMULATOR_ONLY(Ex1Trace);

}  // namespace
}  // namespace lab06
