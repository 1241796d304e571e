// Exercise 4: the causal mask (key j left out of query i's softmax when
// j > i). The fused forward with causal = true against the masked
// double-precision reference, o and L, for n in {1, 16, 17, 33, 100, 257}
// (one row, tile multiples and one past, primes) and d in {32, 64, 128};
// naive attention with causal = true too, since its kernels use the same
// mask; on the GPU also n = 4096, d = 128. On the emulator the trace shows
// the skipped tiles: a block of queries [b Br, (b + 1) Br) loads the keys
// and values up to its last query and none above the diagonal, about
// T (T + 1) / 2 tiles for T blocks instead of T^2.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
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
constexpr int kLengths[] = {1, 16, 17, 33, 100, 257};

class Ex4Causal : public OnBackend {
 protected:
  Observation run_flash(const Attention& shape, const Inputs& in, std::vector<float>& out,
                        const RunOptions& options = {}) {
    out.assign(shape.values() + shape.rows(), kNaN);
    return backend().call(harness::entry::flash_forward, shape, in.q, in.k, in.v, out, options);
  }
  void expect_flash(const Attention& shape) {
    const Inputs in = random_inputs(rng_, shape);
    std::vector<float> out;
    const std::string what = "flash_forward, " + describe(shape);
    const Observation observation = run_flash(shape, in, out);
    ASSERT_TRUE(ran(observation)) << what;
    EXPECT_TRUE(
        flash_output_matches(out, reference_attention(shape, in.q, in.k, in.v), shape, what));
    EXPECT_TRUE(nothing_written_outside(observation, what));
  }
};

TEST_P(Ex4Causal, Ex4_FusedForwardWithTheMask) {
  for (const Attention& shape :
       sweep({1, 16, 17, 33, 100, 257}, {32, 64, 128}, true, on_emulator())) {
    expect_flash(shape);
    if (HasFailure()) return;
  }
}

TEST_P(Ex4Causal, Ex4_NaiveAttentionWithTheMask) {
  for (const Attention& shape :
       sweep({1, 16, 17, 33, 100, 257}, {32, 128}, true, on_emulator(), 2)) {
    const Inputs in = random_inputs(rng_, shape);
    std::vector<float> o(shape.values(), kNaN);
    const std::string what = "naive_attention, " + describe(shape);
    const Observation observation = naive_attention(backend(), shape, in.q, in.k, in.v, o);
    ASSERT_TRUE(ran(observation)) << what;
    EXPECT_TRUE(o_matches(o, reference_attention(shape, in.q, in.k, in.v), shape, what));
    EXPECT_TRUE(nothing_written_outside(observation, what));
    if (HasFailure()) return;
  }
}

TEST_P(Ex4Causal, Ex4_LongSequence) {
  if (on_emulator()) GTEST_SKIP() << "n = 4096 takes too long on the emulator; GPU only";
  expect_flash(attention(1, 4096, 128, true));
}

CUDALAB_ON_BOTH_BACKENDS(Ex4Causal);

class Ex4Trace : public Ex4Causal {};

TEST_P(Ex4Trace, Ex4_BlocksAboveTheDiagonalAreNeverLoaded) {
  for (const auto& [heads, n, d] : {std::array{2, 100, 32}, std::array{1, 200, 64}}) {
    const Attention shape = attention(heads, n, d, true);
    const Inputs in = random_inputs(rng_, shape);
    std::vector<float> out;
    const std::string what = "flash_forward, " + describe(shape);
    const Observation observation = run_flash(shape, in, out, RunOptions{.trace = true});
    ASSERT_TRUE(ran(observation)) << what;
    ASSERT_TRUE(observation.loads) << what << ": the call was not traced";
    const auto tile = backend().call(harness::entry::flash_tile, d);
    const std::uint64_t loaded = observation.loads->bytes;
    Attention unmasked = shape;
    unmasked.causal = false;
    EXPECT_EQ(loaded, flash_load_bytes(shape, tile))
        << what << ": the kernel read " << loaded << " bytes from global memory. Reading Q "
        << "once and, for each block of " << tile.query_rows << " queries, K and V only up to "
        << "the block's last query is " << flash_load_bytes(shape, tile)
        << "; without skipping the keys above the diagonal it is "
        << flash_load_bytes(unmasked, tile)
        << " (more: keys above the diagonal or past the block's last query loaded, or a tile "
        << "twice; fewer: keys the block needs skipped)";
    EXPECT_TRUE(stored_bytes(observation, flash_store_bytes(shape), what,
                             "o and L, once each, as without the mask"));
    EXPECT_TRUE(
        flash_output_matches(out, reference_attention(shape, in.q, in.k, in.v), shape, what));
    if (HasFailure()) return;
  }
}

CUDALAB_ON_EMULATOR_ONLY(Ex4Trace);

}  // namespace
}  // namespace lab06
