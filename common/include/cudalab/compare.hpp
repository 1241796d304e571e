// Comparing a result with its reference, element by element.
//
//   auto c = cudalab::compare(actual, expected, {.atol = 1e-6, .rtol = 1e-5},
//                             {.shape = {rows, cols}});
//   if (!c.ok) std::cerr << c.to_string();   // (3, 17): actual 1.5, expected 1, ...
//
// An element passes iff |actual - expected| <= atol + rtol * |expected|.
// Special values are never waved through by that formula:
//   * NaN fails, on either side. Both NaN passes only with nan_equals_nan.
//   * An infinity passes only against the same infinity.
// Different sizes fail. The result keeps the first mismatches with their
// index (a multi-index when a shape is given) and both values, so a test
// failure says where and by how much, not just "not equal".
// For GoogleTest, compare_gtest.hpp wraps this in an AssertionResult.
#pragma once

#include <cmath>
#include <cstddef>
#include <functional>
#include <iterator>
#include <numeric>
#include <ranges>
#include <string>
#include <vector>

namespace cudalab {

struct Tolerance {
  double atol = 0;  // absolute: what matters near zero
  double rtol = 0;  // relative to |expected|: what matters for large values
};

struct CompareOptions {
  // The dimensions of the data, outermost first (row-major). Empty: report
  // flat indices. Otherwise the product must equal the expected size.
  std::vector<std::size_t> shape{};
  bool nan_equals_nan = false;    // let NaN in both at one index pass
  std::size_t max_reported = 10;  // how many mismatches to keep for the report
};

struct Mismatch {
  std::size_t index;  // flat, row-major
  double actual;
  double expected;
};

struct Comparison {
  bool ok = true;
  std::size_t actual_size = 0;
  std::size_t expected_size = 0;
  std::size_t mismatch_count = 0;
  // Over the elements where both values are finite.
  double max_abs_error = 0;
  double max_rel_error = 0;  // |actual - expected| / |expected|; inf if expected is 0
  std::size_t max_abs_error_index = 0;
  std::size_t finite_pairs = 0;    // elements where both values are finite
  std::size_t unexpected_nan = 0;  // NaN in actual where expected is not NaN
  std::size_t first_unexpected_nan = 0;
  std::vector<Mismatch> first_mismatches{};  // at most options.max_reported, in index order
  Tolerance tolerance{};
  std::vector<std::size_t> shape{};

  explicit operator bool() const { return ok; }

  // Several lines for a test failure; one line when ok.
  std::string to_string() const;
  // "(3, 17)" with a shape, "[52]" without.
  std::string format_index(std::size_t flat_index) const;
};

// "(3, 17)": flat index 68 of a row-major (5, 17) array; "[68]" without a shape.
std::string format_index(std::size_t flat_index, const std::vector<std::size_t>& shape);

// The rule for one element; see the top of this file.
inline bool within_tolerance(double actual, double expected, Tolerance tolerance,
                             bool nan_equals_nan = false) {
  if (std::isnan(actual) || std::isnan(expected)) {
    return nan_equals_nan && std::isnan(actual) && std::isnan(expected);
  }
  if (std::isinf(actual) || std::isinf(expected)) return actual == expected;
  return std::abs(actual - expected) <= tolerance.atol + tolerance.rtol * std::abs(expected);
}

namespace detail {
// Throws std::invalid_argument for a negative or NaN tolerance, or a shape
// whose product is not `expected_size`.
void validate_comparison(Tolerance tolerance, const std::vector<std::size_t>& shape,
                         std::size_t expected_size);
}  // namespace detail

// `actual` and `expected` are contiguous ranges (std::vector, std::span,
// std::array) of anything convertible to double.
template <std::ranges::contiguous_range Actual, std::ranges::contiguous_range Expected>
Comparison compare(const Actual& actual, const Expected& expected, Tolerance tolerance,
                   CompareOptions options = {}) {
  const auto* a = std::ranges::data(actual);
  const auto* e = std::ranges::data(expected);
  Comparison result;
  result.actual_size = std::ranges::size(actual);
  result.expected_size = std::ranges::size(expected);
  result.tolerance = tolerance;
  detail::validate_comparison(tolerance, options.shape, result.expected_size);
  result.shape = std::move(options.shape);
  if (result.actual_size != result.expected_size) {
    result.ok = false;
    return result;
  }
  for (std::size_t i = 0; i < result.expected_size; ++i) {
    const double x = static_cast<double>(a[i]);
    const double y = static_cast<double>(e[i]);
    if (std::isnan(x) && !std::isnan(y) && result.unexpected_nan++ == 0) {
      result.first_unexpected_nan = i;
    }
    if (std::isfinite(x) && std::isfinite(y)) {
      ++result.finite_pairs;
      const double abs_error = std::abs(x - y);
      if (abs_error > result.max_abs_error) {
        result.max_abs_error = abs_error;
        result.max_abs_error_index = i;
      }
      const double rel_error = abs_error == 0 ? 0 : abs_error / std::abs(y);
      if (rel_error > result.max_rel_error) result.max_rel_error = rel_error;
    }
    if (!within_tolerance(x, y, tolerance, options.nan_equals_nan)) {
      ++result.mismatch_count;
      if (result.first_mismatches.size() < options.max_reported) {
        result.first_mismatches.push_back({i, x, y});
      }
    }
  }
  result.ok = result.mismatch_count == 0;
  return result;
}

}  // namespace cudalab
