// Exercise 6 (stretch): the backward pass in FA2's order (a block per tile
// of keys, dK and dV accumulated on the chip, an inner walk over blocks of
// queries, P recomputed from Q, K and L, dQ added by atomics). Against the
// double-precision gradient of o = softmax(scale q k^T [masked]) v, dq, dk
// and dv; the o and L the kernel gets come from the reference forward, so
// that exercise 6 does not depend on exercise 3:
//   - n in {1, 5, 17, 33, 64, 100}: below one tile, around it, a multiple
//     of both tiles (64) and not a multiple of anything; d in {32, 64,
//     128}; 1 to 3 heads; causal and not; n below one tile of keys and one
//     block of queries; n = 257 (two shapes on the emulator, every d causal
//     and not on the GPU); on the GPU also n = 4096 (d 128);
//   - a scale other than 1/sqrt(d);
//   - NaN: a NaN in dO row i makes dq row i NaN, dk of every key row i
//     attends to NaN, dv's column of the NaN NaN for those keys, and leaves
//     the rest right;
//   - the check rejects a dq, dk or dv with one element changed by 1e-3 of
//     the tensor's largest value, or NaN.
// On the emulator the trace shows the two kernels (D, then the main one), dk
// and dv stored once each and D once, dq written by atomics only (none of
// its writes is a store), and no report (race, out-of-bounds or
// uninitialised read). Bad shapes fail the call and leave the gradients
// alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <initializer_list>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "lab06_test_support.hpp"

namespace lab06 {
namespace {

using cudalab::harness::nothing_written_outside;
using cudalab::harness::Observation;
using cudalab::harness::ran;
using cudalab::harness::RunOptions;
using harness::AttentionGradients;
using harness::reference_attention_backward;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// A gradient's tolerance: |actual - expected| <= 5e-5 max|expected| + 1e-6
// + 1e-4 |expected|, max|expected| over the tensor's finite elements. An
// element is a sum of n terms of both signs (dS_ij = P_ij (dP_ij - D_i) is
// the difference of two sums of d products, D from the fp32 o), so an
// element near 0 has an absolute error of the size of the tensor's larger
// elements, not of its own: the absolute part scales with the tensor. The
// atomics add the tiles' parts of dq in any order, which changes the
// rounding from run to run but not its size. 1e-6 is for n = 1, where dq
// and dk are exactly 0 (P = 1 and dP = D) and the kernel keeps the rounding
// of dP - D. Measured on the emulator (n up to 257, every d, causal and
// not), the reference solution's worst error was 1.4e-6 of max|expected|
// (1/35 of the absolute part; n = 1: 1.2e-7), and no element used more
// than 0.12 of the tolerance; on an H200 at n = 4096, d = 128 (the same
// kernel, in a standalone program), 3.1e-6 of max|expected| and 0.023 of
// the tolerance. One element changed by 1e-3 of max|expected| fails it
// (Ex6_TheCheckRejectsAPerturbedGradient).
constexpr double kAbsoluteOfLargest = 5e-5;
constexpr double kAbsolute = 1e-6;
constexpr double kRelative = 1e-4;

cudalab::Tolerance gradient_tolerance(const std::vector<float>& expected) {
  float largest = 0.0f;
  for (const float x : expected) {
    if (std::isfinite(x)) largest = std::max(largest, std::fabs(x));
  }
  return {kAbsoluteOfLargest * largest + kAbsolute, kRelative};
}

::testing::AssertionResult gradients_match(const AttentionGradients& actual,
                                           const AttentionGradients& expected,
                                           const Attention& shape, const std::string& what) {
  for (const auto& [got, want, name] :
       {std::tuple{&actual.dq, &expected.dq, ", dq at (head, query row, column)"},
        std::tuple{&actual.dk, &expected.dk, ", dk at (head, key row, column)"},
        std::tuple{&actual.dv, &expected.dv, ", dv at (head, key row, column)"}}) {
    auto checked = close_to(*got, *want,
                            {std::size_t(shape.heads), std::size_t(shape.n), std::size_t(shape.d)},
                            what + name, gradient_tolerance(*want));
    if (!checked) return checked;
  }
  return ::testing::AssertionSuccess();
}

// What the backward gets: the forward's inputs, its o and L (from the
// reference forward), and the upstream gradient dO.
struct BackwardInputs {
  Inputs in;
  Attended forward;
  std::vector<float> d_o;
};

// q, k, v and dO uniform in [-1, 1).
BackwardInputs random_backward_inputs(cudalab::Random& rng, const Attention& shape) {
  Inputs in = random_inputs(rng, shape);
  Attended forward = reference_attention(shape, in.q, in.k, in.v);
  return {std::move(in), std::move(forward), rng.uniform(shape.values(), -1.0f, 1.0f)};
}

// The backward's call, with the scratch D needs: dq, dk and dv travel as
// one output, `gradients`, in that order (3 x heads x n x d).
Observation flash_backward(harness::Backend& on, const Attention& shape,
                           const std::vector<float>& q, const std::vector<float>& k,
                           const std::vector<float>& v, const std::vector<float>& o,
                           const std::vector<float>& d_o, const std::vector<float>& lse,
                           std::vector<float>& gradients, const RunOptions& options = {}) {
  return on.call(harness::entry::flash_backward, shape, q, k, v, o, d_o, lse,
                 harness::Temp<float>{shape.rows()}, gradients, options);
}

class Ex6Backward : public OnBackend {
 protected:
  // The gradients start as NaN: an element the kernel never writes fails.
  Observation run(harness::Backend& on, const Attention& shape, const BackwardInputs& b,
                  AttentionGradients& out, const RunOptions& options = {}) {
    std::vector<float> gradients(3 * shape.values(), kNaN);
    const Observation observation = flash_backward(on, shape, b.in.q, b.in.k, b.in.v, b.forward.o,
                                                   b.d_o, b.forward.lse, gradients, options);
    const auto part = [&](std::size_t p) {
      return std::vector<float>(gradients.begin() + std::ptrdiff_t(p * shape.values()),
                                gradients.begin() + std::ptrdiff_t((p + 1) * shape.values()));
    };
    out = {part(0), part(1), part(2)};
    return observation;
  }
  void expect_gradients(const Attention& shape, const BackwardInputs& b,
                        const std::string& inputs_are) {
    AttentionGradients out;
    const std::string what = "flash_backward, " + describe(shape) + inputs_are;
    const Observation observation = run(backend(), shape, b, out);
    ASSERT_TRUE(ran(observation)) << what;
    EXPECT_TRUE(gradients_match(
        out, reference_attention_backward(shape, b.in.q, b.in.k, b.in.v, b.d_o), shape, what));
    EXPECT_TRUE(nothing_written_outside(observation, what));
  }
  void expect_gradients(const Attention& shape) {
    expect_gradients(shape, random_backward_inputs(rng_, shape), "");
  }
  void expect_sweep(std::initializer_list<int> lengths, bool causal) {
    for (const Attention& shape : sweep(lengths, {32, 64, 128}, causal, on_emulator())) {
      expect_gradients(shape);
      if (HasFailure()) return;
    }
  }
};

TEST_P(Ex6Backward, Ex6_SizesAroundTheTiles) { expect_sweep({1, 5, 17, 33, 64, 100}, false); }

TEST_P(Ex6Backward, Ex6_CausalSizesAroundTheTiles) { expect_sweep({1, 5, 17, 33, 64, 100}, true); }

// n = 257: 9 tiles of keys, the last with one key, and 5 blocks of queries,
// the last with one query. The emulator runs two of the six shapes (a head
// there costs about as much as all of the sweeps above).
TEST_P(Ex6Backward, Ex6_NotAMultipleOfAnything) {
  if (on_emulator()) {
    expect_gradients(attention(1, 257, 32));
    if (HasFailure()) return;
    expect_gradients(attention(1, 257, 128, true));
    return;
  }
  for (const bool causal : {false, true}) {
    for (const Attention& shape : sweep({257}, {32, 64, 128}, causal, false)) {
      expect_gradients(shape);
      if (HasFailure()) return;
    }
  }
}

// One block of queries and one tile of keys cover the whole sequence, and
// the rest of each lies past n.
TEST_P(Ex6Backward, Ex6_ShorterThanOneTile) {
  for (const int d : {32, 64, 128}) {
    const auto tile = backend().call(harness::entry::flash_backward_tile, d);
    const int smaller = std::min(tile.query_rows, tile.key_rows);
    for (const int n : {smaller - 1, smaller / 2 + 1}) {
      if (n < 1) continue;
      for (const bool causal : {false, true}) {
        expect_gradients(attention(2, n, d, causal));
        if (HasFailure()) return;
      }
    }
  }
}

TEST_P(Ex6Backward, Ex6_AScaleOtherThanOneOverSqrtD) {
  Attention shape = attention(2, 45, 64);
  shape.scale = 0.3f;
  expect_gradients(shape);
}

// dO[head 1, row 7, column 3] is NaN, without the mask, so query 7 attends
// to every key: D and every dP of row 7 are NaN, so dq row 7, all of head
// 1's dk, and column 3 of head 1's dv (dv_j = sum_i P_ij dO_i) are NaN;
// the other rows of dq, the other columns of dv and head 0 are right.
TEST_P(Ex6Backward, Ex6_NaNInDOReachesWhatTheFormulasSay) {
  const Attention shape = attention(2, 37, 32);
  BackwardInputs b = random_backward_inputs(rng_, shape);
  b.d_o[(1 * 37 + 7) * 32 + 3] = kNaN;
  expect_gradients(shape, b, ", dO[head 1, row 7, column 3] = NaN");
}

// With the mask, the NaN is in the last row, which attends to every key,
// so that the same elements are NaN as without it. (A NaN in an earlier row
// i may also reach dk of keys after i in the tiles the diagonal crosses:
// their P is exactly 0, and 0 * NaN is NaN, as in PyTorch's math backend,
// which multiplies whole matrices. The formulas leave those keys alone, so
// this test does not ask either way.)
TEST_P(Ex6Backward, Ex6_CausalNaNInTheLastRowOfDO) {
  const Attention shape = attention(2, 37, 32, true);
  BackwardInputs b = random_backward_inputs(rng_, shape);
  b.d_o[(0 * 37 + 36) * 32 + 10] = kNaN;
  expect_gradients(shape, b, ", causal, dO[head 0, row 36, column 10] = NaN");
}

TEST_P(Ex6Backward, Ex6_LongSequences) {
  if (on_emulator()) GTEST_SKIP() << "n = 4096 takes too long on the emulator; GPU only";
  expect_gradients(attention(1, 4096, 128));
  if (HasFailure()) return;
  expect_gradients(attention(1, 4096, 128, true));
}

// The check is not vacuous: the reference solution's gradients pass it, and
// the same with one element of dq, dk or dv changed by 1e-3 of that tensor's
// largest value (at its largest element, and at its first), or NaN, fail it.
TEST_P(Ex6Backward, Ex6_TheCheckRejectsAPerturbedGradient) {
  const Attention shape = attention(2, 40, 64, true);
  const BackwardInputs b = random_backward_inputs(rng_, shape);
  const AttentionGradients expected =
      reference_attention_backward(shape, b.in.q, b.in.k, b.in.v, b.d_o);
  AttentionGradients out;
  ASSERT_TRUE(ran(run(reference(), shape, b, out)));
  ASSERT_TRUE(gradients_match(out, expected, shape, "the reference solution"));
  for (const auto gradient :
       {&AttentionGradients::dq, &AttentionGradients::dk, &AttentionGradients::dv}) {
    const std::vector<float>& values = out.*gradient;
    const auto largest = std::max_element(
        values.begin(), values.end(), [](float x, float y) { return std::fabs(x) < std::fabs(y); });
    const float step = 1e-3f * std::fabs(*largest);
    for (const std::size_t e : {std::size_t(largest - values.begin()), std::size_t(0)}) {
      AttentionGradients perturbed = out;
      (perturbed.*gradient)[e] += step;
      EXPECT_FALSE(gradients_match(perturbed, expected, shape, "perturbed"))
          << "element " << e << " changed from " << values[e] << " to " << (perturbed.*gradient)[e]
          << " passed the check";
      (perturbed.*gradient)[e] = kNaN;
      EXPECT_FALSE(gradients_match(perturbed, expected, shape, "NaN"))
          << "element " << e << " set to NaN passed the check";
    }
  }
}

// Shapes the kernels do not handle are refused before anything runs, with
// the wrong argument named, and the gradients keep their values.
TEST_P(Ex6Backward, Ex6_BadShapesAreRefused) {
  for (const BadShape& bad : bad_shapes()) {
    const Attention& shape = bad.shape;
    const std::vector<float> q(bad.q_values, 0.5f), values(shape.values(), 0.5f);
    const std::vector<float> lse(shape.rows(), 0.5f), untouched(3 * shape.values(), 7.0f);
    std::vector<float> gradients = untouched;
    const std::string what = "flash_backward with " + bad.what;
    EXPECT_TRUE(refused(
        [&] {
          return flash_backward(backend(), shape, q, values, values, values, values, lse,
                                gradients);
        },
        bad.names, what));
    EXPECT_EQ(gradients, untouched)
        << what << ": dq, dk or dv changed although the call was refused";
  }
}

CUDALAB_ON_BOTH_BACKENDS(Ex6Backward);

// What the emulator saw of the backward's memory traffic. The output region
// is dq, dk and dv, in that order (3 x heads x n x d floats).
class Ex6Trace : public Ex6Backward {};

TEST_P(Ex6Trace, Ex6_DkAndDvStoredOnceAndDqOnlyByAtomics) {
  // Small shapes: the emulator keeps 2^22 accesses per launch for the
  // coverage, and every shared-memory access counts.
  const int d = 32;
  const int key_rows = backend().call(harness::entry::flash_backward_tile, d).key_rows;
  // Without the mask every row of dq gets one atomicAdd from each of the
  // ceil(n / Bc) tiles of keys: 3 with n = 2 Bc + 5.
  for (const Attention& shape : {attention(1, 2 * key_rows + 5, d), attention(1, 70, d, true)}) {
    const BackwardInputs b = random_backward_inputs(rng_, shape);
    AttentionGradients out;
    const std::string what = "flash_backward, " + describe(shape);
    const Observation observation = run(backend(), shape, b, out, RunOptions{.trace = true});
    ASSERT_TRUE(ran(observation)) << what;
    ASSERT_TRUE(observation.launches && observation.coverage && observation.stores)
        << what << ": the call was not traced";
    EXPECT_EQ(*observation.launches, 2)
        << what << ": the backward is two kernel launches, D = rowsum(dO o O) and the main one";
    EXPECT_TRUE(stored_bytes(observation, 4 * (2 * shape.values() + shape.rows()), what,
                             "4 bytes x (dk's and dv's heads x n x d + D's heads x n): dk and dv "
                             "stored once, D once, and dq never by a plain store, only by "
                             "atomicAdd (the emulator counts atomics apart from stores)"));
    const cudalab::harness::CoverageSummary& coverage = *observation.coverage;
    ASSERT_TRUE(coverage.complete)
        << what << ": the trace was cut short; the test needs a smaller shape";
    EXPECT_EQ(coverage.unwritten, 0u)
        << what << ": " << coverage.unwritten << " elements of dq, dk and dv never written\n"
        << cudalab::harness::coverage_problems(coverage, {});
    if (!shape.causal) {
      EXPECT_EQ(coverage.written_once, 2 * shape.values())
          << what << ": every element of dk and dv is written by one thread, once";
      EXPECT_EQ(coverage.written_more, shape.values())
          << what << ": every element of dq gets an atomicAdd from each tile of keys";
    }
    EXPECT_TRUE(observation.reports.empty())
        << what << ": the emulator reported " << observation.report_count
        << " problem(s); first: " << (observation.reports.empty() ? "" : observation.reports[0]);
    EXPECT_TRUE(gradients_match(
        out, reference_attention_backward(shape, b.in.q, b.in.k, b.in.v, b.d_o), shape, what));
    if (HasFailure()) return;
  }
}

CUDALAB_ON_EMULATOR_ONLY(Ex6Trace);

}  // namespace
}  // namespace lab06
