// Exercise 5: the fused forward on the tensor cores, bf16 q, k, v and o,
// fp32 scores, softmax statistics and L. Against the double-precision
// reference of the bf16 inputs (decoded exactly to float), o within a
// tolerance derived from bf16's rounding (below) and L within 1e-4:
//   - n in {1, 16, 31, 33, 64, 100} and d in {32, 64, 128}, causal and
//     not, 1 to 3 heads; n below one tile of queries and one tile of keys;
//     on the GPU also n = 4096 (d 128, 2 heads, causal and not) and
//     n = 1000 (d 64);
//   - NaN as in PyTorch: a NaN in query row i makes o row i and L row i NaN
//     and leaves every other row right; without the mask, a NaN in value
//     row j reaches every o row of its head and leaves L alone;
//   - the check rejects an o with one element off by 1e-2 or with one
//     exponent bit flipped, and an L off by 1e-3.
// On the emulator the trace shows one launch, o stored once in bf16 and L
// in fp32, Q read once and K and V once per block of queries, and no report
// (race, out-of-bounds or uninitialised read). Bad shapes fail the call and
// leave o and L alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cudalab/half_bits.hpp"
#include "cudalab/numerics/formats.hpp"
#include "lab06_test_support.hpp"

namespace lab06 {
namespace {

using cudalab::bf16_bits_to_floats;
using cudalab::to_bf16_bits;
using cudalab::harness::nothing_written_outside;
using cudalab::harness::Observation;
using cudalab::harness::ran;
using cudalab::harness::RunOptions;
using cudalab::numerics::bf16_bits_to_fp32;
using cudalab::numerics::fp32_to_bf16_bits;

constexpr std::uint16_t kBf16NaN = 0x7fc0;

// What o and L hold before a call: values no correct result can have
// (|o| <= max |v| <= 1 here, and L is below 20), so an element the kernel
// never writes fails the check, NaN rows included.
constexpr std::uint16_t kUnwrittenO = 0x4040;  // 3.0 in bf16
constexpr float kUnwrittenL = 1e4f;

// o's tolerance: |actual - expected| <= (2^-8 + 2^-11) max|v| + 2^-8 |expected|.
// bf16 keeps 8 significant bits, so rounding to it moves a value by at most
// 2^-8 of itself (unit roundoff u = 2^-8). The kernel rounds twice:
//   - P to bf16 before P V: o = sum_j p_j (1 + e_j) v_j / l with |e_j| <= u
//     (l sums the unrounded p), off by at most u sum_j p_j |v_j| / l
//     <= u max|v|, since o is an average of the rows of v;
//   - o itself to bf16 at the end: u |o|, i.e. u |expected| plus u times the
//     error above (u^2 max|v|, inside the slack below).
// Everything else is fp32 and far smaller; the slack 2^-11 max|v| covers it
// up to n = 4096, d = 128. The scores are sums of exact bf16 products in
// d / 16 chained mma blocks, each rounding at about 6.3e-7 (docs/numerics.md:
// (16 + 1) 2^-25 + 2^-23), so a score is off by at most
// d / 16 * 6.3e-7 * scale * d max|q| max|k| ~ 5.7e-5 at d = 128, which moves
// the weights of o's average by that relative amount: 2 * 5.7e-5 max|v|. P V
// chains n / 16 blocks: n / 16 * 6.3e-7 ~ 1.6e-4 of max|v| at n = 4096.
// Together 2.7e-4 max|v| < 2^-11 max|v| = 4.9e-4 max|v|. With max|v| = 1 the
// whole tolerance is at most 2^-7 + 2^-11 ~ 8.3e-3, so one element off by
// 1e-2, or an exponent bit flipped, fails (Ex5_TheCheckRejectsAPerturbedOutput).
// Measured on the emulator (n up to 100, every d, causal or not), the
// reference solution's worst element used 0.32 of it.
cudalab::Tolerance o_tolerance(const std::vector<float>& v) {
  float largest = 0.0f;
  for (const float x : v) {
    if (std::isfinite(x)) largest = std::max(largest, std::fabs(x));
  }
  return {(0x1p-8 + 0x1p-11) * largest, 0x1p-8};
}

// L's tolerance: fp32 throughout (the scores come from exact bf16 products,
// l sums the unrounded p), so L is off by about the score error above,
// at most 5.7e-5 at d = 128, plus fp32 roundings of m and log(l) (1e-6
// relative). 1e-4 absolute and relative; a sum l of the bf16-rounded p, or
// one quad's partial sum left unreduced, is far outside it. The reference
// solution's worst L used 0.001 of it on the emulator: the bound is the
// worst case of the score error, which random inputs never approach.
constexpr cudalab::Tolerance kLTolerance{1e-4, 1e-4};

// The kernel's inputs, bf16 bit patterns.
struct Bf16Inputs {
  std::vector<std::uint16_t> q, k, v;
};

// Uniform in [-1, 1) rounded to bf16.
Bf16Inputs random_bf16_inputs(cudalab::Random& rng, const Attention& shape) {
  const Inputs in = random_inputs(rng, shape);
  return {to_bf16_bits(in.q), to_bf16_bits(in.k), to_bf16_bits(in.v)};
}

// The reference of exactly the values the kernel got: bf16 -> fp32 is
// exact, NaN included.
Attended reference_bf16(const Attention& shape, const Bf16Inputs& in) {
  return reference_attention(shape, bf16_bits_to_floats(in.q), bf16_bits_to_floats(in.k),
                             bf16_bits_to_floats(in.v));
}

// o (decoded from bf16) and L against the reference.
::testing::AssertionResult bf16_output_matches(const std::vector<float>& o,
                                               const std::vector<float>& lse,
                                               const Attended& expected, const Attention& shape,
                                               const cudalab::Tolerance& tolerance,
                                               const std::string& what) {
  const std::size_t heads = shape.heads, n = shape.n, d = shape.d;
  const auto o_checked = close_to(o, expected.o, {heads, n, d},
                                  what + ", o (bf16) at (head, query row, column)", tolerance);
  if (!o_checked) return o_checked;
  return close_to(lse, expected.lse, {heads, n}, what + ", L = m + log(l) at (head, query row)",
                  kLTolerance);
}

class Ex5FlashBf16 : public OnBackend {
 protected:
  // flash_forward_bf16 into o and lse, both set to kUnwritten* first.
  Observation run(const Attention& shape, const Bf16Inputs& in, std::vector<std::uint16_t>& o,
                  std::vector<float>& lse, const RunOptions& options = {}) {
    o.assign(shape.values(), kUnwrittenO);
    lse.assign(shape.rows(), kUnwrittenL);
    return backend().call(harness::entry::flash_forward_bf16, shape, in.q, in.k, in.v, o, lse,
                          options);
  }
  void expect_attention(const Attention& shape, const Bf16Inputs& in,
                        const std::string& inputs_are) {
    std::vector<std::uint16_t> o;
    std::vector<float> lse;
    const std::string what = "flash_forward_bf16, " + describe(shape) + inputs_are;
    const Observation observation = run(shape, in, o, lse);
    ASSERT_TRUE(ran(observation)) << what;
    EXPECT_TRUE(bf16_output_matches(bf16_bits_to_floats(o), lse, reference_bf16(shape, in), shape,
                                    o_tolerance(bf16_bits_to_floats(in.v)), what));
    EXPECT_TRUE(nothing_written_outside(observation, what));
  }
  void expect_attention(const Attention& shape) {
    expect_attention(shape, random_bf16_inputs(rng_, shape), "");
  }
};

// Every n with every d, causal and not, 1 to 3 heads.
TEST_P(Ex5FlashBf16, Ex5_SizesAroundTheTiles) {
  for (const bool causal : {false, true}) {
    for (const Attention& shape :
         sweep({1, 16, 31, 33, 64, 100, 129, 257}, {32, 64, 128}, causal, on_emulator())) {
      expect_attention(shape);
      if (HasFailure()) return;
    }
  }
}

// One block of queries covers the whole sequence and one or two tiles of
// keys do, with the rest of each tile past n (zero-filled, masked).
TEST_P(Ex5FlashBf16, Ex5_ShorterThanOneTile) {
  for (const int d : {32, 64, 128}) {
    const auto tile = backend().call(harness::entry::flash_tile_bf16, d);
    ASSERT_GT(tile.key_rows, 1);
    ASSERT_GT(tile.query_rows, tile.key_rows + 1);
    for (const int n : {tile.key_rows - 1, tile.key_rows + 1, tile.query_rows - 1}) {
      expect_attention(attention(1, n, d, n == tile.key_rows + 1));
      if (HasFailure()) return;
    }
  }
}

// A head offset mixed up with a row offset shows only with several heads.
TEST_P(Ex5FlashBf16, Ex5_SeveralHeads) {
  expect_attention(attention(3, 33, 64));
  if (HasFailure()) return;
  expect_attention(attention(2, 40, 32, true));
}

// Scores from 256 to 1024 with scale = 1, so that scale * log2(e) > 1: the
// tile's maximum must be scaled like the scores it is subtracted from, or
// exp2(s * scale * log2(e) - max(s)) overflows to infinity.
TEST_P(Ex5FlashBf16, Ex5_LargeScoresNeedTheScaledMaximum) {
  for (const bool causal : {false, true}) {
    Attention shape = attention(2, 70, 64, causal);
    shape.scale = 1.0f;
    const auto integers = [&](int lo, int hi) {
      const auto values = rng_.uniform(shape.values(), lo, hi);
      return to_bf16_bits(std::vector<float>(values.begin(), values.end()));
    };
    const Bf16Inputs in{integers(2, 4), integers(2, 4),
                        to_bf16_bits(rng_.uniform(shape.values(), -1.0f, 1.0f))};
    expect_attention(shape, in, ", integer scores from 256 to 1024 and scale 1");
    if (HasFailure()) return;
  }
}

TEST_P(Ex5FlashBf16, Ex5_LongSequences) {
  if (on_emulator()) GTEST_SKIP() << "n = 4096 takes too long on the emulator; GPU only";
  expect_attention(attention(2, 4096, 128));
  if (HasFailure()) return;
  expect_attention(attention(2, 4096, 128, true));
  if (HasFailure()) return;
  expect_attention(attention(1, 1000, 64));
}

// q[head 1, row 7, column 3] is NaN: o and L of (1, 7) are NaN (every
// score of that row is), every other row is right. Causal and not.
TEST_P(Ex5FlashBf16, Ex5_NaNInAQueryRowStaysInThatRow) {
  for (const bool causal : {false, true}) {
    const Attention shape = attention(2, 37, 32, causal);
    Bf16Inputs in = random_bf16_inputs(rng_, shape);
    in.q[(1 * 37 + 7) * 32 + 3] = kBf16NaN;
    expect_attention(shape, in, ", q[head 1, row 7, column 3] = NaN");
    if (HasFailure()) return;
  }
}

// v[head 0, row 20, column 5] is NaN: without the mask every query of head
// 0 weighs value row 20, so column 5 of every o row of head 0 is NaN (as in
// PyTorch), the other columns and head 1 are right, and L is right
// everywhere (it depends on q and k only).
TEST_P(Ex5FlashBf16, Ex5_NaNInAValueRowReachesEveryRowOfItsHead) {
  const Attention shape = attention(2, 37, 32);
  Bf16Inputs in = random_bf16_inputs(rng_, shape);
  in.v[(0 * 37 + 20) * 32 + 5] = kBf16NaN;
  const Attended expected = reference_bf16(shape, in);
  for (int row = 0; row < 37; ++row) {
    ASSERT_TRUE(std::isnan(expected.o[(0 * 37 + std::size_t(row)) * 32 + 5]))
        << "the reference should make column 5 of every o row of head 0 NaN";
  }
  expect_attention(shape, in, ", v[head 0, row 20, column 5] = NaN");
}

// The check is not vacuous: the reference solution's output passes it, and
// the same output with the largest |o| off by 1e-2 (away from the expected
// value) or with that element's lowest exponent bit flipped (a factor of 2)
// fails it, as does the largest |L| off by 1e-3.
TEST_P(Ex5FlashBf16, Ex5_TheCheckRejectsAPerturbedOutput) {
  const Attention shape = attention(2, 40, 64);
  const Bf16Inputs in = random_bf16_inputs(rng_, shape);
  const Attended expected = reference_bf16(shape, in);
  const cudalab::Tolerance tolerance = o_tolerance(bf16_bits_to_floats(in.v));
  std::vector<std::uint16_t> o(shape.values(), kUnwrittenO);
  std::vector<float> lse(shape.rows(), kUnwrittenL);
  ASSERT_TRUE(
      ran(reference().call(harness::entry::flash_forward_bf16, shape, in.q, in.k, in.v, o, lse)));
  const std::vector<float> o_values = bf16_bits_to_floats(o);
  ASSERT_TRUE(
      bf16_output_matches(o_values, lse, expected, shape, tolerance, "the reference solution"));
  const auto largest = [](const std::vector<float>& x) {
    return std::size_t(
        std::max_element(x.begin(), x.end(),
                         [](float a, float b) { return std::fabs(a) < std::fabs(b); }) -
        x.begin());
  };
  const std::size_t e = largest(o_values);
  ASSERT_GT(std::fabs(o_values[e]), 0.05f) << "the largest |o| is too small to flip a bit of";

  std::vector<float> off = o_values;
  off[e] += std::copysign(1e-2f, o_values[e] - expected.o[e]);
  EXPECT_FALSE(bf16_output_matches(off, lse, expected, shape, tolerance, "off by 1e-2"))
      << "o element " << e << " changed from " << o_values[e] << " to " << off[e]
      << " passed the check";

  std::vector<std::uint16_t> flipped = o;
  flipped[e] ^= 0x0080;  // the lowest of the 8 exponent bits
  EXPECT_FALSE(bf16_output_matches(bf16_bits_to_floats(flipped), lse, expected, shape, tolerance,
                                   "exponent flipped"))
      << "o element " << e << " changed from " << o_values[e] << " to "
      << bf16_bits_to_fp32(flipped[e]) << " passed the check";

  std::vector<float> lse_off = lse;
  lse_off[largest(lse)] += 1e-3f;
  EXPECT_FALSE(bf16_output_matches(o_values, lse_off, expected, shape, tolerance, "L off by 1e-3"))
      << "L element " << largest(lse) << " changed by 1e-3 passed the check";
}

// Shapes the kernel does not handle are refused before anything runs, with
// the wrong argument named, and o and L keep their values.
TEST_P(Ex5FlashBf16, Ex5_BadShapesAreRefused) {
  const std::uint16_t half = fp32_to_bf16_bits(0.5f);
  for (const BadShape& bad : bad_shapes()) {
    const Attention& shape = bad.shape;
    const std::vector<std::uint16_t> q(bad.q_values, half), kv(shape.values(), half);
    const std::vector<std::uint16_t> untouched_o(shape.values(), kUnwrittenO);
    const std::vector<float> untouched_lse(shape.rows(), kUnwrittenL);
    std::vector<std::uint16_t> o = untouched_o;
    std::vector<float> lse = untouched_lse;
    const std::string what = "flash_forward_bf16 with " + bad.what;
    EXPECT_TRUE(refused(
        [&] {
          return backend().call(harness::entry::flash_forward_bf16, shape, q, kv, kv, o, lse);
        },
        bad.names, what));
    EXPECT_EQ(o, untouched_o) << what << ": o changed although the call was refused";
    EXPECT_EQ(lse, untouched_lse) << what << ": L changed although the call was refused";
  }
}

// The kernel takes each tile's maximum of the unscaled scores, which is the
// maximum of the scaled ones only for a positive scale: zero and negative
// scales are refused, with o and L unchanged.
TEST_P(Ex5FlashBf16, Ex5_AScaleThatIsNotPositiveIsRefused) {
  for (const float scale : {0.0f, -0.125f}) {
    Attention shape = attention(1, 17, 64);
    shape.scale = scale;
    const std::vector<std::uint16_t> q(shape.values(), fp32_to_bf16_bits(0.5f)), kv = q;
    const std::vector<std::uint16_t> untouched_o(shape.values(), kUnwrittenO);
    const std::vector<float> untouched_lse(shape.rows(), kUnwrittenL);
    std::vector<std::uint16_t> o = untouched_o;
    std::vector<float> lse = untouched_lse;
    const std::string what = "flash_forward_bf16 with scale " + std::to_string(scale);
    EXPECT_TRUE(refused(
        [&] {
          return backend().call(harness::entry::flash_forward_bf16, shape, q, kv, kv, o, lse);
        },
        "scale", what));
    EXPECT_EQ(o, untouched_o) << what << ": o changed although the call was refused";
    EXPECT_EQ(lse, untouched_lse) << what << ": L changed although the call was refused";
  }
}

CUDALAB_ON_BOTH_BACKENDS(Ex5FlashBf16);

// What the emulator saw of the tensor-core kernel's memory traffic.
class Ex5Trace : public Ex5FlashBf16 {};

TEST_P(Ex5Trace, Ex5_OneKernelThatStoresOnlyOAndL) {
  for (const auto& [heads, n, d, causal] : {std::array{2, 37, 32, 0}, std::array{1, 70, 64, 1}}) {
    const Attention shape = attention(heads, n, d, causal != 0);
    const Bf16Inputs in = random_bf16_inputs(rng_, shape);
    std::vector<std::uint16_t> o;
    std::vector<float> lse;
    const std::string what = "flash_forward_bf16, " + describe(shape);
    const Observation observation = run(shape, in, o, lse, RunOptions{.trace = true});
    ASSERT_TRUE(ran(observation)) << what;
    ASSERT_TRUE(observation.launches && observation.coverage && observation.loads)
        << what << ": the call was not traced";
    EXPECT_EQ(*observation.launches, 1) << what << ": the fused forward is one kernel launch";
    // The emulator counts every global store of the launch, L's buffer
    // included although it lies outside the observed output (o).
    EXPECT_TRUE(stored_bytes(observation, 2 * shape.values() + 4 * shape.rows(), what,
                             "2 bytes x o's heads x n x d (bf16) + 4 bytes x L's heads x n "
                             "(fp32): nothing else may go to global memory"));
    EXPECT_TRUE(cudalab::harness::written_exactly_once(*observation.coverage, {}, what + ", o"));
    EXPECT_TRUE(observation.reports.empty())
        << what << ": the emulator reported " << observation.report_count
        << " problem(s); first: " << (observation.reports.empty() ? "" : observation.reports[0]);
    // flash_load_bytes counts fp32 elements; bf16 halves them.
    const auto tile = backend().call(harness::entry::flash_tile_bf16, d);
    const std::uint64_t expected_loads = flash_load_bytes(shape, tile) / 2;
    EXPECT_EQ(observation.loads->bytes, expected_loads)
        << what << ": the kernel read " << observation.loads->bytes
        << " bytes from global memory; reading Q once and, for each block of " << tile.query_rows
        << " queries, K and V up to the block's last key (nothing past n, nothing above the "
        << "diagonal with the mask) is " << expected_loads
        << " (more: a tile loaded twice, or rows past n; fewer: keys skipped)";
    EXPECT_TRUE(bf16_output_matches(bf16_bits_to_floats(o), lse, reference_bf16(shape, in), shape,
                                    o_tolerance(bf16_bits_to_floats(in.v)), what));
    if (HasFailure()) return;
  }
}

CUDALAB_ON_EMULATOR_ONLY(Ex5Trace);

}  // namespace
}  // namespace lab06
