// Exercise 2: masks and `other`. The gather's input has exactly the elements
// the last index needs, so an unmasked load past the end leaves the
// allocation (the emulator reports it, the interpreter refuses it). The
// column programs run on widths that are not a power of two and on row
// counts that are not multiples of the row block; the maxima on all-negative
// inputs, where an `other` of 0 wins the maximum, and on columns of
// -infinity, where any finite `other` does. Small-integer inputs make the
// sums exact in any order. On the emulator, the trace shows that masked-out
// elements are never read and that the gather's stores are coalesced.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "lab05_test_support.hpp"

namespace lab05 {
namespace {

using cudalab::harness::matches;
using cudalab::harness::nothing_written_outside;
using cudalab::harness::ran;
using cudalab::harness::RunOptions;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

std::string shape_text(int rows, int columns) {
  return std::to_string(rows) + " x " + std::to_string(columns);
}

class Ex2Masks : public OnBackend {};

TEST_P(Ex2Masks, Ex2_StridedGather) {
  for (const int stride : {1, 2, 3, 17, 32}) {
    for (const int n : {1, 97, 513, 5000}) {
      const auto x = rng_.uniform(std::size_t(n - 1) * stride + 1, -1.0f, 1.0f);
      std::vector<float> expected(n), out(n, kNaN);
      for (int i = 0; i < n; ++i) expected[i] = x[std::size_t(i) * stride];
      const std::string what =
          "strided_gather, n = " + std::to_string(n) + ", stride " + std::to_string(stride);
      const auto observation = backend().call(harness::entry::strided_gather, x, stride, out, n);
      ASSERT_TRUE(ran(observation)) << what;
      EXPECT_TRUE(matches(out, expected, {}, what));
      EXPECT_TRUE(nothing_written_outside(observation, what));
      if (HasFailure()) return;
    }
  }
}

// Shapes: one element, a prime width over several column programs, a row
// count past one row block, exact multiples, and no rows at all.
constexpr int kShapes[][2] = {{1, 1}, {45, 781}, {100, 65}, {32, 64}, {33, 127}, {0, 70}};

TEST_P(Ex2Masks, Ex2_ColumnSums) {
  for (const auto& [rows, columns] : kShapes) {
    const auto ints = rng_.uniform(std::size_t(rows) * columns, -50, 50);
    const std::vector<float> x(ints.begin(), ints.end());
    std::vector<float> expected(columns, 0.0f), out(columns, kNaN);
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < columns; ++c) expected[c] += x[std::size_t(r) * columns + c];
    }
    const std::string what = "column_sums of " + shape_text(rows, columns);
    const auto observation = backend().call(harness::entry::column_sums, x, rows, columns, out);
    ASSERT_TRUE(ran(observation)) << what;
    EXPECT_TRUE(matches(out, expected, {}, what));
    EXPECT_TRUE(nothing_written_outside(observation, what));
    if (HasFailure()) return;
  }
}

TEST_P(Ex2Masks, Ex2_ColumnMaxesOfNegativeValues) {
  for (const auto& [rows, columns] : kShapes) {
    const auto x = rng_.uniform(std::size_t(rows) * columns, -100.0f, -1.0f);
    std::vector<float> expected(columns, -std::numeric_limits<float>::infinity()),
        out(columns, kNaN);
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < columns; ++c) {
        expected[c] = std::max(expected[c], x[std::size_t(r) * columns + c]);
      }
    }
    const std::string what = "column_maxes of " + shape_text(rows, columns) +
                             " values in [-100, -1) (what does a masked-out element read as?)";
    const auto observation = backend().call(harness::entry::column_maxes, x, rows, columns, out);
    ASSERT_TRUE(ran(observation)) << what;
    EXPECT_TRUE(matches(out, expected, {}, what));
    EXPECT_TRUE(nothing_written_outside(observation, what));
    if (HasFailure()) return;
  }
}

// -infinity is a value like any other: a column of only -infinity has the
// maximum -infinity, which no masked-out element may beat (the lowest finite
// float as `other` does). Every third column is all -infinity; every shape
// but 32 x 64 leaves masked-out rows in its last row block.
TEST_P(Ex2Masks, Ex2_ColumnMaxesOfMinusInfinity) {
  constexpr float kMinusInf = -std::numeric_limits<float>::infinity();
  for (const auto& [rows, columns] : kShapes) {
    auto x = rng_.uniform(std::size_t(rows) * columns, -100.0f, 100.0f);
    std::vector<float> expected(columns, kMinusInf), out(columns, kNaN);
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < columns; ++c) {
        float& value = x[std::size_t(r) * columns + c];
        if (c % 3 == 0) value = kMinusInf;
        expected[c] = std::max(expected[c], value);
      }
    }
    const std::string what = "column_maxes of " + shape_text(rows, columns) +
                             " with every third column -infinity (what does a masked-out "
                             "element read as?)";
    const auto observation = backend().call(harness::entry::column_maxes, x, rows, columns, out);
    ASSERT_TRUE(ran(observation)) << what;
    EXPECT_TRUE(matches(out, expected, {}, what));
    EXPECT_TRUE(nothing_written_outside(observation, what));
    if (HasFailure()) return;
  }
}

CUDALAB_ON_ALL_BACKENDS(Ex2Masks);

class Ex2Trace : public OnBackend {};

TEST_P(Ex2Trace, Ex2_MaskedElementsAreNeverRead) {
  const int rows = 45, columns = 781;
  const auto x = rng_.uniform(std::size_t(rows) * columns, -1.0f, 1.0f);
  std::vector<float> out(columns, kNaN);
  const auto observation =
      backend().call(harness::entry::column_sums, x, rows, columns, out, RunOptions{.trace = true});
  ASSERT_TRUE(ran(observation));
  EXPECT_TRUE(moved_bytes(observation, 4ull * rows * columns, 4ull * columns,
                          "column_sums of " + shape_text(rows, columns)));
}

// The gather's loads are strided by design; its stores are not: program p
// writes out[p * block + e], so a warp's 32 stores are consecutive, and each
// element is read and written once.
TEST_P(Ex2Trace, Ex2_GatherStoresEachElementOnceCoalesced) {
  const int n = 5000, stride = 3;
  const auto x = rng_.uniform(std::size_t(n - 1) * stride + 1, -1.0f, 1.0f);
  std::vector<float> out(n, kNaN);
  const std::string what = "strided_gather, n = 5000, stride 3";
  const auto observation =
      backend().call(harness::entry::strided_gather, x, stride, out, n, RunOptions{.trace = true});
  ASSERT_TRUE(ran(observation)) << what;
  EXPECT_TRUE(moved_bytes(observation, 4ull * n, 4ull * n, what));
  EXPECT_TRUE(coalesced(*observation.stores, 4, what + " (stores)"));
  EXPECT_TRUE(cudalab::harness::written_exactly_once(*observation.coverage, {}, what));
}

CUDALAB_ON_EMULATOR_ONLY(Ex2Trace);

}  // namespace
}  // namespace lab05
