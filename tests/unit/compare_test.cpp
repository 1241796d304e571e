// cudalab::compare: the check every lab's tests rely on to reject wrong output.
#include "cudalab/compare.hpp"

#include <gtest/gtest.h>

#include <array>
#include <limits>
#include <vector>

#include "cudalab/compare_gtest.hpp"
#include "cudalab/random.hpp"

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(Compare, IdenticalRandomDataPasses) {
  auto rng = cudalab::Random::fresh();
  SCOPED_TRACE(rng.seed_note());
  const std::vector<float> expected = rng.uniform(1009, -10.0f, 10.0f);
  const cudalab::Comparison c = cudalab::compare(expected, expected, {.atol = 0, .rtol = 0});
  EXPECT_TRUE(c.ok) << c.to_string();
  EXPECT_EQ(c.mismatch_count, 0u);
  EXPECT_EQ(c.max_abs_error, 0.0);
  EXPECT_TRUE(cudalab::all_close(expected, expected, {.atol = 0, .rtol = 0}));
}

TEST(Compare, OnePerturbedElementFailsAndIsReported) {
  auto rng = cudalab::Random::fresh();
  SCOPED_TRACE(rng.seed_note());
  const std::vector<double> expected = rng.normal(997, 0.0, 1.0);
  std::vector<double> actual = expected;
  const std::size_t where = rng.uniform<std::size_t>(1, 0, actual.size() - 1)[0];
  actual[where] += 1e-3;

  const cudalab::Comparison c = cudalab::compare(actual, expected, {.atol = 1e-5, .rtol = 1e-5});
  EXPECT_FALSE(c.ok);
  EXPECT_FALSE(static_cast<bool>(c));
  EXPECT_EQ(c.mismatch_count, 1u);
  ASSERT_EQ(c.first_mismatches.size(), 1u);
  EXPECT_EQ(c.first_mismatches[0].index, where);
  EXPECT_EQ(c.first_mismatches[0].actual, actual[where]);
  EXPECT_EQ(c.first_mismatches[0].expected, expected[where]);
  EXPECT_NEAR(c.max_abs_error, 1e-3, 1e-12);
  EXPECT_EQ(c.max_abs_error_index, where);
  EXPECT_NE(c.to_string().find("[" + std::to_string(where) + "]"), std::string::npos)
      << c.to_string();
  EXPECT_FALSE(cudalab::all_close(actual, expected, {.atol = 1e-5, .rtol = 1e-5}));
}

TEST(Compare, ToleranceEdgeIsInclusive) {
  // |a - e| <= atol + rtol * |e|, tested with exactly representable numbers:
  // e = 4, atol = 0.25, rtol = 0.5 allows a difference of exactly 2.25.
  const cudalab::Tolerance tol{.atol = 0.25, .rtol = 0.5};
  EXPECT_TRUE(cudalab::compare(std::array{6.25}, std::array{4.0}, tol).ok);
  EXPECT_TRUE(cudalab::compare(std::array{1.75}, std::array{4.0}, tol).ok);
  EXPECT_FALSE(cudalab::compare(std::array{std::nextafter(6.25, 7.0)}, std::array{4.0}, tol).ok);
  // (One ulp below 1.75 would round back onto the edge in the subtraction.)
  EXPECT_FALSE(cudalab::compare(std::array{1.75 - 1e-9}, std::array{4.0}, tol).ok);
  // The relative part scales with |expected|, not |actual|.
  EXPECT_TRUE(cudalab::compare(std::array{-6.25}, std::array{-4.0}, tol).ok);
  // Zero tolerance demands equality.
  EXPECT_TRUE(cudalab::compare(std::array{1.5}, std::array{1.5}, {}).ok);
  EXPECT_FALSE(cudalab::compare(std::array{std::nextafter(1.5, 2.0)}, std::array{1.5}, {}).ok);
}

TEST(Compare, NaNInActualFailsEvenWithHugeTolerance) {
  const cudalab::Comparison c = cudalab::compare(
      std::vector{1.0, kNaN, 3.0}, std::vector{1.0, 2.0, 3.0}, {.atol = 1e30, .rtol = 1e30});
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.mismatch_count, 1u);
  ASSERT_EQ(c.first_mismatches.size(), 1u);
  EXPECT_EQ(c.first_mismatches[0].index, 1u);
  EXPECT_NE(c.to_string().find("actual NaN"), std::string::npos) << c.to_string();
}

TEST(Compare, NaNInExpectedFailsAgainstANumber) {
  EXPECT_FALSE(cudalab::compare(std::vector{2.0}, std::vector{kNaN}, {.atol = 1e30}).ok);
}

TEST(Compare, BothNaNFailsUnlessTheCallerOptsIn) {
  const std::vector<float> nan{std::numeric_limits<float>::quiet_NaN()};
  EXPECT_FALSE(cudalab::compare(nan, nan, {.atol = 1}).ok);
  EXPECT_TRUE(cudalab::compare(nan, nan, {.atol = 1}, {.nan_equals_nan = true}).ok);
  // Opting in does not let NaN pass against a number.
  EXPECT_FALSE(
      cudalab::compare(nan, std::vector<float>{1.0f}, {.atol = 1}, {.nan_equals_nan = true}).ok);
}

TEST(Compare, InfinityPassesOnlyAgainstTheSameInfinity) {
  const cudalab::Tolerance loose{.atol = 1e30, .rtol = 1e30};
  EXPECT_TRUE(cudalab::compare(std::vector{kInf}, std::vector{kInf}, {}).ok);
  EXPECT_TRUE(cudalab::compare(std::vector{-kInf}, std::vector{-kInf}, {}).ok);
  EXPECT_FALSE(cudalab::compare(std::vector{-kInf}, std::vector{kInf}, loose).ok);
  EXPECT_FALSE(cudalab::compare(std::vector{kInf}, std::vector{1.0}, loose).ok);
  // rtol * |inf| would allow any finite value; the rule must not.
  EXPECT_FALSE(cudalab::compare(std::vector{1.0}, std::vector{kInf}, loose).ok);
}

TEST(Compare, SizeMismatchFailsAndSaysSo) {
  const cudalab::Comparison c = cudalab::compare(std::vector{1.0, 2.0}, std::vector{1.0}, {});
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.to_string(), "size mismatch: actual has 2 elements, expected has 1");
}

TEST(Compare, EmptyRangesAreEqual) {
  EXPECT_TRUE(cudalab::compare(std::vector<float>{}, std::vector<float>{}, {}).ok);
}

TEST(Compare, ShapeGivesMultiIndices) {
  // A 5 x 7 x 3 array; flat index 3*21 + 4*3 + 2 = 77 is element (3, 4, 2).
  std::vector<float> expected(5 * 7 * 3, 1.0f);
  std::vector<float> actual = expected;
  actual[77] = 2.0f;
  const cudalab::Comparison c =
      cudalab::compare(actual, expected, {.atol = 0.5}, {.shape = {5, 7, 3}});
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.format_index(77), "(3, 4, 2)");
  EXPECT_EQ(c.format_index(0), "(0, 0, 0)");
  EXPECT_NE(c.to_string().find("at (3, 4, 2): actual 2, expected 1"), std::string::npos)
      << c.to_string();
}

TEST(Compare, TwoDimensionalMultiIndex) {
  std::vector<double> expected(20 * 31, 0.0);
  std::vector<double> actual = expected;
  actual[3 * 31 + 17] = kNaN;
  const cudalab::Comparison c = cudalab::compare(actual, expected, {}, {.shape = {20, 31}});
  EXPECT_NE(c.to_string().find("at (3, 17): actual NaN"), std::string::npos) << c.to_string();
}

TEST(Compare, ReportsOnlyTheFirstMismatchesButCountsAll) {
  std::vector<double> expected(100, 0.0);
  std::vector<double> actual(100, 1.0);
  const cudalab::Comparison c = cudalab::compare(actual, expected, {}, {.max_reported = 4});
  EXPECT_EQ(c.mismatch_count, 100u);
  ASSERT_EQ(c.first_mismatches.size(), 4u);
  EXPECT_EQ(c.first_mismatches[3].index, 3u);
  EXPECT_NE(c.to_string().find("... and 96 more"), std::string::npos) << c.to_string();
}

TEST(Compare, MixedElementTypes) {
  // A float result against a double reference, as most labs check.
  const std::vector<float> actual{0.1f, 0.2f};
  const std::vector<double> expected{0.1, 0.2};
  EXPECT_FALSE(cudalab::compare(actual, expected, {}).ok);  // float rounding is visible
  EXPECT_TRUE(cudalab::compare(actual, expected, {.rtol = 1e-7}).ok);
  const std::vector<int> integers{1, 2};
  EXPECT_TRUE(cudalab::compare(integers, std::vector{1.0, 2.0}, {}).ok);
}

TEST(Compare, RejectsInvalidTolerance) {
  const std::vector<double> v{1.0};
  EXPECT_THROW(cudalab::compare(v, v, {.atol = -1}), std::invalid_argument);
  EXPECT_THROW(cudalab::compare(v, v, {.rtol = kNaN}), std::invalid_argument);
}

TEST(Compare, RejectsAShapeThatDoesNotMatchTheSize) {
  const std::vector<double> v(12, 1.0);
  try {
    static_cast<void>(cudalab::compare(v, v, {}, {.shape = {5, 3}}));
    FAIL() << "a 5 x 3 shape for 12 elements was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "compare: shape (5, 3) has 15 elements but expected has 12");
  }
}

TEST(Compare, WithinToleranceMatchesCompare) {
  auto rng = cudalab::Random::fresh();
  SCOPED_TRACE(rng.seed_note());
  const std::vector<double> a = rng.uniform(500, -2.0, 2.0);
  const std::vector<double> e = rng.uniform(500, -2.0, 2.0);
  const cudalab::Tolerance tol{.atol = 0.5, .rtol = 0.25};
  std::size_t failures = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    failures += !cudalab::within_tolerance(a[i], e[i], tol);
  EXPECT_GT(failures, 0u);  // random pairs this far apart must produce some
  EXPECT_EQ(cudalab::compare(a, e, tol).mismatch_count, failures);
}

}  // namespace

// An output that is all NaN has no error figure: the message says NaN, never
// "max abs error 0" (which reads as "nothing is wrong").
TEST(Compare, AllNaNIsReportedAsNaN) {
  const std::vector<float> actual(7, std::numeric_limits<float>::quiet_NaN());
  const auto c = cudalab::compare(actual, std::vector<float>(7, 1.0f), {.atol = 1e-3});
  ASSERT_FALSE(c.ok);
  const std::string text = c.to_string();
  EXPECT_NE(text.find("7 are NaN where a number was expected, the first at [0]"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("max abs error"), std::string::npos) << text;
  EXPECT_EQ(text.find("nan"), std::string::npos) << text;
}
