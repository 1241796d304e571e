// Exercise 2: the row softmax with the row's maximum m and sum l gathered in
// one pass over blocks of `block` columns (l rescaled by exp(m_old - m_new)
// whenever the maximum grows). Against the double-precision two-pass
// softmax, on block sizes 1, 3, 32, 100, the row length and more than the
// row length, and on rows built to break a wrong update:
//   - values increasing along the row: the maximum changes in every block,
//     so a missing or inverted rescale is wrong everywhere;
//   - -infinity entries, and rows whose first block(s) are only -infinity
//     before finite values: while m is still -infinity the rescale factor
//     exp(m_old - m_new) is exp(-inf - -inf) = NaN unless it is guarded;
//   - a row of only -infinity, which is NaN as PyTorch's softmax gives;
//   - values near 1e4, where exp overflows unless m is subtracted, and near
//     -1e4, where it underflows unless m (not 0) is subtracted;
//   - one column.
// The output starts at 7, which no softmax value is: every element must be
// overwritten.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "lab06_test_support.hpp"

namespace lab06 {
namespace {

using cudalab::harness::nothing_written_outside;
using cudalab::harness::ran;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kUntouched = 7.0f;

class Ex2OnlineSoftmax : public OnBackend {
 protected:
  void expect_softmax(const std::vector<float>& x, int rows, int columns, int block,
                      const std::string& rows_are) {
    std::vector<float> out(x.size(), kUntouched);
    const std::string what = "online_softmax of " + std::to_string(rows) + " x " +
                             std::to_string(columns) + " (" + rows_are + ") in blocks of " +
                             std::to_string(block) + " columns";
    const auto observation =
        backend().call(harness::entry::online_softmax, x, rows, columns, block, out);
    ASSERT_TRUE(ran(observation)) << what;
    EXPECT_TRUE(close_to(out, reference_softmax(x, rows, columns),
                         {std::size_t(rows), std::size_t(columns)}, what + ", at (row, column)"));
    EXPECT_TRUE(nothing_written_outside(observation, what));
  }
  // Every block size the exercise names for rows of `columns`.
  static std::vector<int> block_sizes(int columns) { return {1, 3, 32, 100, columns, columns + 7}; }
};

TEST_P(Ex2OnlineSoftmax, Ex2_RandomRowsInEveryBlockSize) {
  const int rows = 6, columns = 257;
  const auto x = rng_.uniform(std::size_t(rows) * columns, -5.0f, 5.0f);
  for (const int block : block_sizes(columns)) {
    expect_softmax(x, rows, columns, block, "uniform in [-5, 5)");
    if (HasFailure()) return;
  }
}

// Row r grows by 0.05 * (r + 1) per column plus a little noise: the maximum
// moves on in every block, by steps from small (every old term still counts)
// to large (the old terms must shrink by exp(m_old - m_new) or they swamp l).
TEST_P(Ex2OnlineSoftmax, Ex2_MaximumChangesInEveryBlock) {
  const int rows = 4, columns = 300;
  auto x = rng_.uniform(std::size_t(rows) * columns, 0.0f, 0.01f);
  for (int r = 0; r < rows; ++r) {
    const float step = r == rows - 1 ? 1.0f : 0.05f * float(r + 1);
    for (int j = 0; j < columns; ++j) x[std::size_t(r) * columns + j] += step * float(j);
  }
  for (const int block : block_sizes(columns)) {
    expect_softmax(x, rows, columns, block, "increasing along each row");
    if (HasFailure()) return;
  }
}

// Row 0: scattered -infinity entries. Row 1: its first 40 columns -infinity
// (the whole first block, or the first several), then finite. Row 2: only
// -infinity (NaN). Row 3: finite, then -infinity to the end. Row 4: one
// finite value in the last column.
TEST_P(Ex2OnlineSoftmax, Ex2_MinusInfinityEntriesAndLeadingBlocks) {
  const int rows = 5, columns = 131;
  auto x = rng_.uniform(std::size_t(rows) * columns, -3.0f, 3.0f);
  auto at = [&](int r, int j) -> float& { return x[std::size_t(r) * columns + j]; };
  for (int j = 0; j < columns; j += 4) at(0, j) = -kInf;
  for (int j = 0; j < 40; ++j) at(1, j) = -kInf;
  for (int j = 0; j < columns; ++j) at(2, j) = -kInf;
  for (int j = 60; j < columns; ++j) at(3, j) = -kInf;
  for (int j = 0; j < columns - 1; ++j) at(4, j) = -kInf;
  for (const int block : block_sizes(columns)) {
    expect_softmax(x, rows, columns, block,
                   "-infinity entries; row 1 starts with 40 of them, row 2 is only -infinity");
    if (HasFailure()) return;
  }
}

TEST_P(Ex2OnlineSoftmax, Ex2_ValuesNearTenThousandNeedTheMaximum) {
  const int rows = 3, columns = 200;
  const auto x = rng_.uniform(std::size_t(rows) * columns, 9990.0f, 10000.0f);
  for (const int block : {3, 32, columns}) {
    expect_softmax(x, rows, columns, block,
                   "values in [9990, 10000): exp overflows unless m "
                   "is subtracted first");
    if (HasFailure()) return;
  }
}

// Every value far below 0: exp(x) underflows to 0 for all of them, so a
// maximum that starts at 0 instead of -infinity gives 0 / 0; subtracting
// the row's real maximum keeps the largest term at 1.
TEST_P(Ex2OnlineSoftmax, Ex2_ValuesNearMinusTenThousandNeedTheMaximum) {
  const int rows = 3, columns = 200;
  const auto x = rng_.uniform(std::size_t(rows) * columns, -10000.0f, -9990.0f);
  for (const int block : {1, 32, columns}) {
    expect_softmax(x, rows, columns, block,
                   "values in [-10000, -9990): exp underflows to 0 unless the row's maximum, "
                   "not 0, is subtracted");
    if (HasFailure()) return;
  }
}

TEST_P(Ex2OnlineSoftmax, Ex2_OneColumn) {
  const int rows = 7, columns = 1;
  auto x = rng_.uniform(std::size_t(rows), -100.0f, 100.0f);
  x[3] = -kInf;  // its row is NaN
  for (const int block : {1, 3}) {
    expect_softmax(x, rows, columns, block, "one column: every finite row is 1");
    if (HasFailure()) return;
  }
}

// A block of 0 columns would never get through the row.
TEST_P(Ex2OnlineSoftmax, Ex2_BlockOfZeroColumnsIsRefused) {
  const std::vector<float> x(12, 1.0f), untouched(12, kUntouched);
  std::vector<float> out = untouched;
  EXPECT_TRUE(
      refused([&] { return backend().call(harness::entry::online_softmax, x, 3, 4, 0, out); },
              "block", "online_softmax of 3 x 4 in blocks of 0"));
  EXPECT_EQ(out, untouched) << "online_softmax in blocks of 0: out changed";
}

// A negative row or column count gives no size: refused by name.
TEST_P(Ex2OnlineSoftmax, Ex2_NegativeCountIsRefused) {
  const std::vector<float> x(12, 1.0f), untouched(12, kUntouched);
  std::vector<float> out = untouched;
  EXPECT_TRUE(
      refused([&] { return backend().call(harness::entry::online_softmax, x, 3, -4, 1, out); },
              "online_softmax: columns = -4 is not a count", "online_softmax of 3 x -4"));
  EXPECT_EQ(out, untouched) << "online_softmax of 3 x -4: out changed";
}

CUDALAB_ON_BOTH_BACKENDS(Ex2OnlineSoftmax);

}  // namespace
}  // namespace lab06
