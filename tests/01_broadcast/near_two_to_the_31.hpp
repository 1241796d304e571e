// The GPU-only tests that no thread index overflows: a matrix of close to 2^31
// floats (8.6 GB), made and checked on the host without a second such array
// for the expected values. Element (j, k) starts as row_values[j] and must end
// as row_values[j] + column_values[k]: with random rows and columns, a thread
// that adds the wrong column, adds twice or not at all leaves a wrong value.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include "lab01_test_support.hpp"

namespace lab01::testing {

// x = y = 46337: 2,147,117,569 elements, the largest square below 2^31.
constexpr int kNearTwoToThe31Side = 46337;

inline constexpr const char* kGpuOnlyReason =
    "close to 2^31 elements take hours on the emulator; this test runs on the GPU only";

// A (rows, columns) matrix holding row_values[j] in every element of row j.
inline std::vector<float> matrix_of_rows(const std::vector<float>& row_values,
                                         std::size_t columns) {
  std::vector<float> matrix(row_values.size() * columns);
  for (std::size_t row = 0; row < row_values.size(); ++row) {
    std::fill_n(matrix.begin() + static_cast<std::ptrdiff_t>(row * columns), columns,
                row_values[row]);
  }
  return matrix;
}

// Every element (j, k) equals row_values[j] + column_values[k] as one fp32
// add gives it (a NaN never does); the first wrong elements otherwise.
inline ::testing::AssertionResult is_rows_plus_columns(const std::vector<float>& matrix,
                                                       const std::vector<float>& row_values,
                                                       const std::vector<float>& column_values,
                                                       const std::string& what) {
  constexpr std::size_t kShown = 5;
  const std::size_t columns = column_values.size();
  std::size_t wrong = 0;
  std::string shown;
  for (std::size_t row = 0; row < row_values.size(); ++row) {
    const float* values = matrix.data() + row * columns;
    for (std::size_t column = 0; column < columns; ++column) {
      const float expected = row_values[row] + column_values[column];
      if (values[column] == expected) continue;
      if (++wrong <= kShown) {
        char line[160];
        std::snprintf(line, sizeof line, "\n  (%zu, %zu): %.9g, expected %.9g", row, column,
                      static_cast<double>(values[column]), static_cast<double>(expected));
        shown += line;
      }
    }
  }
  if (wrong == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": " << wrong << " of " << matrix.size()
                                       << " elements wrong; the first:" << shown;
}

// a (side, side) += b (side) through `call(a, b)`, which runs one of the
// backend's broadcast_sum variants, checked element by element and for
// writes past a.
template <class Call>
void expect_square_sum_correct(cudalab::Random& rng, int side, const std::string& what,
                               Call&& call) {
  const std::vector<float> rows = harness::nonzero_values(rng, static_cast<std::size_t>(side));
  const std::vector<float> b = harness::nonzero_values(rng, static_cast<std::size_t>(side));
  std::vector<float> a = matrix_of_rows(rows, static_cast<std::size_t>(side));
  const Observation run = call(a, b);
  ASSERT_TRUE(ran(run)) << what;
  EXPECT_TRUE(is_rows_plus_columns(a, rows, b, what));
  EXPECT_TRUE(nothing_written_outside(run, what));
}

}  // namespace lab01::testing
