// Exercise 3: row softmax. Against a double-precision reference with a
// relative tolerance of 2e-5 (expf is within 2 ulp; the sums reduce in a
// tree), on the issue's 1823 x 781, on widths around the block sizes (1, 31,
// 32, 33, 4096, 5000), on rows whose values sit near 1e4 (exp overflows
// unless the maximum is subtracted), with -infinity entries, and on a row of
// only -infinity, which is NaN as in PyTorch. Rows are strided in x and in
// out: the elements between output rows must keep their values, and every
// row element is overwritten (out starts at 7, which no softmax value is).
// On a GPU, rows that start past 2^31 elements into x need a 64-bit row
// start.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
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

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kUntouched = 7.0f;

struct Case {
  int rows, columns, x_stride, out_stride;
  std::string what() const {
    return "softmax of " + std::to_string(rows) + " x " + std::to_string(columns) +
           " (row strides " + std::to_string(x_stride) + " in x, " + std::to_string(out_stride) +
           " in out)";
  }
};

// out as the reference expects it: softmax rows at out_stride, kUntouched
// between them; NaN for a row of only -infinity.
std::vector<float> expected_softmax(const Case& c, const std::vector<float>& x) {
  std::vector<float> out(std::size_t(c.rows - 1) * c.out_stride + c.columns, kUntouched);
  for (int r = 0; r < c.rows; ++r) {
    const float* row = x.data() + std::size_t(r) * c.x_stride;
    double largest = -kInf, total = 0.0;
    for (int j = 0; j < c.columns; ++j) largest = std::max(largest, double(row[j]));
    for (int j = 0; j < c.columns; ++j) total += std::exp(double(row[j]) - largest);
    for (int j = 0; j < c.columns; ++j) {
      out[std::size_t(r) * c.out_stride + j] =
          largest == -kInf ? std::numeric_limits<float>::quiet_NaN()
                           : static_cast<float>(std::exp(double(row[j]) - largest) / total);
    }
  }
  return out;
}

class Ex3Softmax : public OnBackend {
 protected:
  void expect_softmax(const Case& c, const std::vector<float>& x) {
    auto expected = expected_softmax(c, x);
    std::vector<float> out(expected.size(), kUntouched);
    const auto observation = backend().call(harness::entry::softmax, x, c.rows, c.columns,
                                            c.x_stride, out, c.out_stride);
    ASSERT_TRUE(ran(observation)) << c.what();
    // The reference's NaN rows must be NaN; then both sides compare as 0 there.
    for (std::size_t e = 0; e < expected.size(); ++e) {
      if (!std::isnan(expected[e])) continue;
      EXPECT_TRUE(std::isnan(out[e])) << c.what() << ": element " << e
                                      << " is in a row of only -infinity, which PyTorch's "
                                         "softmax makes NaN; got "
                                      << out[e];
      expected[e] = out[e] = 0.0f;
    }
    EXPECT_TRUE(matches(out, expected, {}, c.what(), cudalab::Tolerance{1e-9, 2e-5}));
    EXPECT_TRUE(nothing_written_outside(observation, c.what()));
  }

  std::vector<float> random_x(const Case& c, float lo, float hi) {
    return rng_.uniform(std::size_t(c.rows - 1) * c.x_stride + c.columns, lo, hi);
  }
};

TEST_P(Ex3Softmax, Ex3_TheIssuesShape) {
  const Case c{1823, 781, 781, 781};
  expect_softmax(c, random_x(c, -5.0f, 5.0f));
}

TEST_P(Ex3Softmax, Ex3_WidthsAroundTheBlockSizes) {
  for (const int columns : {1, 31, 32, 33, 4096, 5000}) {
    const Case c{3, columns, columns + 5, columns + 3};
    expect_softmax(c, random_x(c, -5.0f, 5.0f));
    if (HasFailure()) return;
  }
}

TEST_P(Ex3Softmax, Ex3_ValuesNearTenThousandNeedTheMaximum) {
  const Case c{17, 300, 301, 300};
  expect_softmax(c, random_x(c, 9990.0f, 10000.0f));
}

TEST_P(Ex3Softmax, Ex3_MinusInfinityEntriesAndRows) {
  const Case c{9, 97, 97, 100};
  auto x = random_x(c, -3.0f, 3.0f);
  for (std::size_t e = 0; e < x.size(); e += 5) x[e] = -kInf;
  for (int j = 0; j < c.columns; ++j) x[std::size_t(4) * c.x_stride + j] = -kInf;  // row 4
  expect_softmax(c, x);
}

// Rows that start past 2^31 elements into x: row 2 of a matrix whose rows
// lie 2^30 + 3 apart starts at element 2^31 + 6, which a row start computed
// as int * int wraps to a negative offset (the GPU faults or reads another
// row). x is 8.6 GB, zero except for its three rows; GPU only, as the
// emulator would have to fill and shadow every byte of it.
TEST_P(Ex3Softmax, Ex3_RowsPastTwoToThe31Elements) {
  if (on_emulator() || on_interpreter()) {
    GTEST_SKIP() << "an 8.6 GB input; this test runs on the GPU only";
  }
  const Case c{3, 100, (1 << 30) + 3, 100};
  std::vector<float> x(std::size_t(c.rows - 1) * c.x_stride + c.columns, 0.0f);
  for (int r = 0; r < c.rows; ++r) {
    const auto row = rng_.uniform(c.columns, -5.0f, 5.0f);
    std::copy(row.begin(), row.end(), x.begin() + std::ptrdiff_t(r) * c.x_stride);
  }
  expect_softmax(c, x);
}

CUDALAB_ON_ALL_BACKENDS(Ex3Softmax);

class Ex3Trace : public OnBackend {};

TEST_P(Ex3Trace, Ex3_ReadsAndWritesEachElementOnce) {
  const int rows = 64, columns = 781;
  const auto x = rng_.uniform(std::size_t(rows) * columns, -1.0f, 1.0f);
  std::vector<float> out(x.size(), kUntouched);
  const auto observation = backend().call(harness::entry::softmax, x, rows, columns, columns, out,
                                          columns, RunOptions{.trace = true});
  ASSERT_TRUE(ran(observation));
  const std::uint64_t bytes = 4ull * rows * columns;
  EXPECT_TRUE(moved_bytes(observation, bytes, bytes, "softmax of 64 x 781"));
  // A row of 781 floats starts anywhere in a sector: 32 of them touch 5.
  EXPECT_TRUE(coalesced(*observation.loads, 5, "softmax (loads)"));
}

CUDALAB_ON_EMULATOR_ONLY(Ex3Trace);

}  // namespace
}  // namespace lab05
