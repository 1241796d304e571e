// cudalab::compare as a GoogleTest assertion:
//
//   EXPECT_TRUE(cudalab::all_close(actual, expected, {.atol = 1e-6, .rtol = 1e-5}))
//       << rng.seed_note();
//
// On failure the message lists the first mismatches with index and values.
// A separate header so that the library itself does not depend on GoogleTest.
#pragma once

#include <gtest/gtest.h>

#include <utility>

#include "cudalab/compare.hpp"

namespace cudalab {

template <std::ranges::contiguous_range Actual, std::ranges::contiguous_range Expected>
::testing::AssertionResult all_close(const Actual& actual, const Expected& expected,
                                     Tolerance tolerance, CompareOptions options = {}) {
  const Comparison comparison = compare(actual, expected, tolerance, std::move(options));
  if (comparison.ok) return ::testing::AssertionSuccess() << comparison.to_string();
  return ::testing::AssertionFailure() << comparison.to_string();
}

}  // namespace cudalab
