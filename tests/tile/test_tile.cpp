// cudalab::tile's unit tests (ctest -L tile). Each test runs small tile
// programs (tile_programs.cuh) on the emulator (Emu/), the GPU (Gpu/,
// skipped without one) and the tile interpreter (Interp/), with fresh random
// inputs, and compares what they wrote with a reference computed here:
// exactly where the arithmetic is exact, else within a stated tolerance; a
// NaN fails unless the reference has a NaN at that element. Every output
// lies between guard elements, and an emulator report fails the test
// (cudalab::harness::OnBackend).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "cudalab/compare.hpp"
#include "cudalab/harness/testing.hpp"
#include "cudalab/numerics/formats.hpp"
#include "tile_backend.hpp"

namespace tile_tests {
namespace {

using cudalab::harness::matches;
using cudalab::harness::nothing_written_outside;
using cudalab::harness::ran;
namespace numerics = cudalab::numerics;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
// Elements per program of the one-dimensional test programs (tile_programs.cuh).
constexpr int kBlock = 256;

using TileOnBackend = cudalab::harness::OnBackend<Backend, make_emulator_backend, make_gpu_backend,
                                                  nullptr, nullptr, make_interpreter_backend>;

// The call threw nothing and wrote nothing into the guards around its output.
::testing::AssertionResult clean(const Observation& observation, const std::string& what) {
  if (auto result = ran(observation); !result) return result << " (" << what << ")";
  return nothing_written_outside(observation, what);
}

// matches(), where a NaN in `expected` asks for a NaN in `actual`.
::testing::AssertionResult matches_with_nans(const std::vector<float>& actual,
                                             const std::vector<float>& expected,
                                             const std::vector<std::size_t>& shape,
                                             const std::string& what,
                                             cudalab::Tolerance tolerance = {}) {
  cudalab::CompareOptions options;
  options.shape = shape;
  options.nan_equals_nan = true;
  options.max_reported = 5;
  const auto comparison = cudalab::compare(actual, expected, tolerance, options);
  if (comparison.ok) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": wrong result\n" << comparison.to_string();
}

std::string shape_text(const std::vector<int>& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    text += (i == 0 ? "" : ", ") + std::to_string(shape[i]);
  }
  return text + "]";
}

std::vector<std::size_t> sizes(std::initializer_list<int> dims) {
  return std::vector<std::size_t>(dims.begin(), dims.end());
}

// Whole numbers in [lo, hi] as floats: sums of a few thousand of them are exact.
std::vector<float> whole_numbers(cudalab::Random& rng, std::size_t n, int lo, int hi) {
  const std::vector<int> values = rng.uniform(n, lo, hi);
  return std::vector<float>(values.begin(), values.end());
}

// ---- creation, program ids, grids ----------------------------------------------------

class TileCreation : public TileOnBackend {};
CUDALAB_ON_ALL_BACKENDS(TileCreation);

TEST_P(TileCreation, ArangeFullAndZerosFillTheirBlocks) {
  for (const auto& shape : CreationSizes::list()) {
    const int n = shape[0];
    const float value = rng_.uniform(1, -100.0f, 100.0f)[0];
    std::vector<float> out = rng_.uniform(3 * n, 1.0f, 2.0f);  // zeros must overwrite these
    std::vector<float> expected(3 * n);
    for (int i = 0; i < n; ++i) {
      expected[i] = static_cast<float>(i);
      expected[n + i] = value;
      expected[2 * n + i] = 0.0f;
    }
    const std::string what = "arange/full/zeros<" + std::to_string(n) + ">";
    const Observation observation = backend().creation(n, value, out);
    ASSERT_TRUE(clean(observation, what));
    EXPECT_TRUE(matches(out, expected, sizes({3, n}), what));
  }
}

class TileGrid : public TileOnBackend {
 protected:
  // What program_ids should write: per program (x fastest) its ids and the grid.
  static std::vector<int> expected_ids(Grid grid) {
    std::vector<int> ids;
    for (int z = 0; z < grid.z; ++z) {
      for (int y = 0; y < grid.y; ++y) {
        for (int x = 0; x < grid.x; ++x) ids.insert(ids.end(), {x, y, z, grid.x, grid.y, grid.z});
      }
    }
    return ids;
  }
  static std::string grid_text(Grid grid) {
    return "grid (" + std::to_string(grid.x) + ", " + std::to_string(grid.y) + ", " +
           std::to_string(grid.z) + ")";
  }
};
CUDALAB_ON_ALL_BACKENDS(TileGrid);

TEST_P(TileGrid, EachProgramSeesItsIdsOnOneTwoAndThreeDimensionalGrids) {
  for (const Grid grid : {Grid{1, 1, 1}, Grid{37, 1, 1}, Grid{5, 3, 1}, Grid{3, 4, 2}}) {
    const std::vector<int> expected = expected_ids(grid);
    std::vector<int> out(expected.size(), -1);
    const Observation observation = backend().program_ids(grid, out);
    ASSERT_TRUE(clean(observation, grid_text(grid)));
    EXPECT_TRUE(
        matches(out, expected, {expected.size() / 6, 6}, "program ids on " + grid_text(grid)));
  }
}

TEST_P(TileGrid, AGridWithAnAxisOfZeroLaunchesNothing) {
  for (const Grid grid : {Grid{0, 1, 1}, Grid{4, 0, 1}, Grid{2, 3, 0}}) {
    std::vector<int> out = rng_.uniform(12, 0, 1000);
    const std::vector<int> before = out;
    const Observation observation = backend().program_ids(grid, out);
    ASSERT_TRUE(clean(observation, grid_text(grid)));
    EXPECT_TRUE(matches(out, before, {}, "the output after a launch on " + grid_text(grid)));
    if (on_emulator()) {
      EXPECT_EQ(observation.launches, 0) << grid_text(grid);
    }
  }
}

TEST_P(TileGrid, ABadGridIsRefusedWithTheGridInTheMessage) {
  for (const Grid grid : {Grid{1, 65536, 1}, Grid{1, 1, 65536}, Grid{-1, 1, 1}, Grid{2, -3, 1}}) {
    std::vector<int> out(6, -1);
    const Observation observation = backend().program_ids(grid, out);
    EXPECT_EQ(observation.error_type, "std::invalid_argument") << grid_text(grid);
    EXPECT_NE(observation.error.find(grid_text(grid)), std::string::npos)
        << "the message should name " << grid_text(grid) << ": " << observation.error;
    EXPECT_TRUE(matches(out, std::vector<int>(6, -1), {}, "the output after " + grid_text(grid)));
  }
}

// ---- element-wise ---------------------------------------------------------------------

class TileElementwise : public TileOnBackend {};
CUDALAB_ON_ALL_BACKENDS(TileElementwise);

TEST_P(TileElementwise, IntegerArithmeticAndBitwiseOperators) {
  for (const int n : {1, 255, 257, 777}) {
    std::vector<int> out(12 * n, -7);
    std::vector<int> expected(12 * n);
    for (int i = 0; i < n; ++i) {
      const int row[6] = {i % 7, i / 3, i & 5, i | 8, 3 * i - 1, -i};
      for (int k = 0; k < 12; ++k) expected[k * n + i] = row[k % 6];
    }
    const std::string what =
        "i % 7, i / 3, i & 5, i | 8, 3 * i - 1, -i on an index block, then "
        "on a Block, for " +
        std::to_string(n) + " elements";
    ASSERT_TRUE(clean(backend().integer_ops(n, out), what));
    EXPECT_TRUE(matches(out, expected, sizes({12, n}), what));
  }
}

// Op's meaning, on one pair of elements (NaN-propagating maximum/minimum).
float reference_op(Op op, float a, float b) {
  const auto nan_max = [](float x, float y) {
    return std::isnan(x) || std::isnan(y) ? kNaN : std::max(x, y);
  };
  const auto nan_min = [](float x, float y) {
    return std::isnan(x) || std::isnan(y) ? kNaN : std::min(x, y);
  };
  switch (op) {
    case Op::add:
      return a + b;
    case Op::subtract:
      return a - b;
    case Op::multiply:
      return a * b;
    case Op::divide:
      return a / b;
    case Op::negate:
      return -a;
    case Op::plus_scalar:
      return a + 2.0f;
    case Op::scalar_minus:
      return 3.0f - a;
    case Op::less:
      return a < b;
    case Op::less_equal:
      return a <= b;
    case Op::greater:
      return a > b;
    case Op::greater_equal:
      return a >= b;
    case Op::equal:
      return a == b;
    case Op::not_equal:
      return a != b;
    case Op::less_and_positive:
      return (a < b) && (b > 0.0f);
    case Op::less_or_positive:
      return (a < b) || (b > 0.0f);
    case Op::not_less:
      return !(a < b);
    case Op::where_blocks:
      return a < b ? a : b;
    case Op::where_block_scalar:
      return a < b ? a : 1.0f;
    case Op::where_scalar_block:
      return a < b ? 2.0f : b;
    case Op::where_scalars:
      return a < b ? 1.0f : 2.0f;
    case Op::maximum:
      return nan_max(a, b);
    case Op::minimum:
      return nan_min(a, b);
    case Op::maximum_scalar:
      return nan_max(a, 0.5f);
    case Op::scalar_minimum:
      return nan_min(0.5f, a);
    case Op::sqrt_abs:
      return std::sqrt(std::fabs(a));
    case Op::exp:
      return static_cast<float>(std::exp(static_cast<double>(a)));
    case Op::exp2:
      return static_cast<float>(std::exp2(static_cast<double>(a)));
    case Op::log_abs:
      return static_cast<float>(std::log(std::fabs(static_cast<double>(a))));
    case Op::abs:
      return std::fabs(a);
    case Op::compound:
      return ((a + b) * 2.0f - a) / 4.0f;
    case Op::count:
      break;
  }
  return kNaN;
}

const char* op_name(Op op) {
  static const char* const names[] = {"a + b",
                                      "a - b",
                                      "a * b",
                                      "a / b",
                                      "-a",
                                      "a + 2",
                                      "3 - a",
                                      "a < b",
                                      "a <= b",
                                      "a > b",
                                      "a >= b",
                                      "a == b",
                                      "a != b",
                                      "(a < b) & (b > 0)",
                                      "(a < b) | (b > 0)",
                                      "!(a < b)",
                                      "where(a < b, a, b)",
                                      "where(a < b, a, 1)",
                                      "where(a < b, 2, b)",
                                      "where(a < b, 1, 2)",
                                      "maximum(a, b)",
                                      "minimum(a, b)",
                                      "maximum(a, 0.5)",
                                      "minimum(0.5, a)",
                                      "sqrt(abs(a))",
                                      "exp(a)",
                                      "exp2(a)",
                                      "log(abs(a))",
                                      "abs(a)",
                                      "c = a; c += b; c *= 2; c -= a; c /= 4"};
  static_assert(std::size(names) == static_cast<std::size_t>(Op::count));
  return names[static_cast<int>(op)];
}

// IEEE single-precision arithmetic, sqrt and the comparisons are exact on
// every backend; exp, exp2 and log are CUDA's (at most 2 ulp off) on the GPU
// and the C library's elsewhere: 1e-6 relative (about 8 ulp) for them.
cudalab::Tolerance op_tolerance(Op op) {
  if (op == Op::exp || op == Op::exp2 || op == Op::log_abs) return {.atol = 0, .rtol = 1e-6};
  return {};
}

TEST_P(TileElementwise, EveryOperatorMatchesTheScalarOperation) {
  for (const int n : {1, 100, 256, 1000}) {
    std::vector<float> x = rng_.signed_uniform(n, 0.25f, 4.0f);
    std::vector<float> y = rng_.signed_uniform(n, 0.25f, 4.0f);
    for (int i = 0; i < n; i += 5) y[i] = x[i];  // a == b somewhere
    if (n >= 100) {  // NaN in either operand: comparisons false, maximum/minimum NaN
      rng_.inject_specials(std::span(x), 2, cudalab::Special::kNaN);
      rng_.inject_specials(std::span(y), 2, cudalab::Special::kNaN);
    }
    std::vector<float> out = rng_.uniform(static_cast<int>(Op::count) * n, -1.0f, 1.0f);
    const std::string what = "element-wise operations on " + std::to_string(n) + " elements";
    ASSERT_TRUE(clean(backend().elementwise(x, y, out), what));
    for (int k = 0; k < static_cast<int>(Op::count); ++k) {
      const Op op = static_cast<Op>(k);
      const std::vector<float> actual(out.begin() + k * n, out.begin() + (k + 1) * n);
      std::vector<float> expected(n);
      for (int i = 0; i < n; ++i) expected[i] = reference_op(op, x[i], y[i]);
      EXPECT_TRUE(matches_with_nans(
          actual, expected, {}, std::string(op_name(op)) + " (" + what + ")", op_tolerance(op)));
    }
  }
}

class TileCasts : public TileOnBackend {
 protected:
  // Values that test rounding to a 16-bit format: exact ties between two
  // neighbours (even and odd), values just off a tie, numbers of every
  // magnitude, overflow, fp16 subnormals, zeros, infinities and NaN.
  std::vector<float> rounding_cases(Element to) {
    const auto widen = [&](std::uint16_t bits) {
      return to == Element::fp16 ? numerics::fp16_bits_to_fp32(bits)
                                 : numerics::bf16_bits_to_fp32(bits);
    };
    const std::uint16_t largest_finite = to == Element::fp16 ? 0x7bff : 0x7f7f;
    std::vector<float> values;
    for (const int bits : rng_.uniform(400, 1, largest_finite - 1)) {
      const float low = widen(static_cast<std::uint16_t>(bits));
      const float high = widen(static_cast<std::uint16_t>(bits + 1));
      const float tie = low + (high - low) / 2;  // exact: one more significand bit
      values.insert(values.end(),
                    {tie, -tie, std::nextafter(tie, 0.0f), std::nextafter(tie, kInf)});
    }
    for (const float v : rng_.signed_uniform(200, 1e-8f, 1e5f)) values.push_back(v);
    values.insert(values.end(), {0.0f, -0.0f, 65504.0f, 65519.0f, 65520.0f, 1e-7f, 3e-8f, 1e30f,
                                 -1e30f, kInf, -kInf, kNaN});
    return values;
  }
};
CUDALAB_ON_ALL_BACKENDS(TileCasts);

TEST_P(TileCasts, ToHalfAndBfloat16RoundToNearestEven) {
  for (const Element to : {Element::fp16, Element::bf16}) {
    const std::vector<float> x = rounding_cases(to);
    std::vector<std::uint16_t> out(x.size(), 0x1234);
    std::vector<std::uint16_t> expected;
    for (const float v : x) {
      expected.push_back(to == Element::fp16 ? numerics::fp32_to_fp16_bits(v)
                                             : numerics::fp32_to_bf16_bits(v));
    }
    const std::string what = to == Element::fp16 ? "cast<__half>" : "cast<__nv_bfloat16>";
    ASSERT_TRUE(clean(backend().cast(to, x, out), what));
    EXPECT_TRUE(matches(out, expected, {}, what + " (bit patterns)"));
  }
}

// ---- broadcasting ---------------------------------------------------------------------

class TileBroadcasting : public TileOnBackend {};
CUDALAB_ON_ALL_BACKENDS(TileBroadcasting);

const char* broadcast_name(Broadcast which) {
  static const char* const names[] = {"[M, 1] + [1, N]",         "[N] + [M, N]",
                                      "[1, N] + [M, N]",         "[1, 1] + [M, N]",
                                      "[M, N] - [M, 1]",         "broadcast_to<M, N>([M, 1])",
                                      "broadcast_to<M, N>([N])", "broadcast_to<M, N>([1])"};
  static_assert(std::size(names) == static_cast<std::size_t>(Broadcast::count));
  return names[static_cast<int>(which)];
}

TEST_P(TileBroadcasting, EveryFormStretchesDimensionsOfOne) {
  for (const auto& shape : BroadcastShapes::list()) {
    const int m = shape[0], n = shape[1];
    const std::vector<float> column = rng_.uniform(m, -10.0f, 10.0f);
    const std::vector<float> row = rng_.uniform(n, -10.0f, 10.0f);
    const std::vector<float> matrix = rng_.uniform(m * n, -10.0f, 10.0f);
    const float scalar = rng_.uniform(1, -10.0f, 10.0f)[0];
    const int cases = static_cast<int>(Broadcast::count);
    std::vector<float> out = rng_.uniform(cases * m * n, 100.0f, 200.0f);
    ASSERT_TRUE(clean(backend().broadcasts(shape, column, row, matrix, scalar, out),
                      "broadcasts on " + shape_text(shape)));
    for (int k = 0; k < cases; ++k) {
      const auto which = static_cast<Broadcast>(k);
      std::vector<float> expected(m * n);
      for (int r = 0; r < m; ++r) {
        for (int c = 0; c < n; ++c) {
          const float mc = matrix[r * n + c];
          const float values[] = {column[r] + row[c], row[c] + mc, row[c] + mc, scalar + mc,
                                  mc - column[r],     column[r],   row[c],      scalar};
          expected[r * n + c] = values[k];
        }
      }
      const std::vector<float> actual(out.begin() + k * m * n, out.begin() + (k + 1) * m * n);
      EXPECT_TRUE(
          matches(actual, expected, sizes({m, n}),
                  std::string(broadcast_name(which)) + " with [M, N] = " + shape_text(shape)));
    }
  }
}

// ---- reductions -----------------------------------------------------------------------

class TileReductions : public TileOnBackend {
 protected:
  // {sum, max, min} of x in double (NaN and infinities as IEEE has them).
  static std::vector<double> sum_max_min(const std::vector<float>& x) {
    double sum = 0, largest = -INFINITY, smallest = INFINITY;
    bool nan = false;
    for (const float v : x) {
      nan = nan || std::isnan(v);
      sum += v;
      largest = std::max<double>(largest, v);
      smallest = std::min<double>(smallest, v);
    }
    if (nan) largest = smallest = NAN;
    return {sum, largest, smallest};
  }

  // Runs reduce_1d on x (its block N, padded with `other` past x) and checks
  // {sum, max, min}; the sum within `sum_tolerance`, max and min exactly.
  void check_1d(int block, const std::vector<float>& x, float other, const std::string& what,
                double sum_tolerance = 0) {
    std::vector<float> padded = x;
    padded.resize(block, other);
    const auto reference = sum_max_min(padded);
    std::vector<float> out(3, 12345.0f);
    const std::string call = what + ", block " + std::to_string(block);
    ASSERT_TRUE(clean(backend().reduce_1d(block, x, other, out), call));
    EXPECT_TRUE(matches_with_nans({out[0]}, {static_cast<float>(reference[0])}, {}, "sum: " + call,
                                  {.atol = sum_tolerance, .rtol = 0}));
    EXPECT_TRUE(matches_with_nans(
        {out[1], out[2]}, {static_cast<float>(reference[1]), static_cast<float>(reference[2])}, {},
        "{max, min}: " + call));
  }
};
CUDALAB_ON_ALL_BACKENDS(TileReductions);

TEST_P(TileReductions, WholeBlockSumMaxMinOfWholeNumbersAreExact) {
  for (const auto& shape : Reduce1DSizes::list()) {
    const int n = shape[0];
    check_1d(n, whole_numbers(rng_, n, -1000, 1000), 0.0f, "whole numbers");
    check_1d(n, whole_numbers(rng_, n, -1000, -1), 0.0f, "all negative");
  }
}

TEST_P(TileReductions, WholeBlockSumOfFractionsIsWithinTheSummationBound) {
  for (const auto& shape : Reduce1DSizes::list()) {
    const int n = shape[0];
    const std::vector<float> x = rng_.uniform(n, -1.0f, 1.0f);
    double magnitude = 0;
    for (const float v : x) magnitude += std::fabs(v);
    // Any order of n - 1 additions: |error| <= (n - 1) * 2^-24 * sum |x|.
    check_1d(n, x, 0.0f, "fractions", (n - 1) * 0x1p-24 * magnitude);
  }
}

TEST_P(TileReductions, MaxSeesPastMinusInfinityAndNaNPropagates) {
  for (const auto& shape : Reduce1DSizes::list()) {
    const int n = shape[0];
    std::vector<float> with_minus_inf = whole_numbers(rng_, n, -1000, -1);
    rng_.inject_specials(std::span(with_minus_inf), std::max(1, n / 4),
                         cudalab::Special::kNegativeInf);
    check_1d(n, with_minus_inf, 0.0f, "-inf entries");
    check_1d(n, std::vector<float>(n, -kInf), 0.0f, "all -inf");
    std::vector<float> with_nan = whole_numbers(rng_, n, -1000, 1000);
    rng_.inject_specials(std::span(with_nan), 1, cudalab::Special::kNaN);
    check_1d(n, with_nan, 0.0f, "one NaN");
  }
}

TEST_P(TileReductions, MaskedOutElementsReduceAsOther) {
  for (const auto& shape : Reduce1DSizes::list()) {
    const int block = shape[0];
    if (block < 2) continue;
    const int n = block - 1 - static_cast<int>(rng_.next_below(block / 2));
    const float other = static_cast<float>(rng_.uniform(1, -2000, 2000)[0]);
    check_1d(block, whole_numbers(rng_, n, -1000, 1000), other,
             std::to_string(n) + " elements, other " + std::to_string(other));
  }
}

TEST_P(TileReductions, AlongEitherAxisOfTwoDimensionalBlocks) {
  for (const auto& shape : Reduce2DShapes::list()) {
    const int m = shape[0], n = shape[1];
    for (const std::string inputs : {"whole numbers", "all negative with -inf", "one NaN"}) {
      std::vector<float> x =
          whole_numbers(rng_, m * n, -1000, inputs == "whole numbers" ? 1000 : -1);
      if (inputs == "all negative with -inf") {
        rng_.inject_specials(std::span(x), std::max(1, m * n / 8), cudalab::Special::kNegativeInf);
      } else if (inputs == "one NaN") {
        rng_.inject_specials(std::span(x), 1, cudalab::Special::kNaN);
      }
      std::vector<float> out(3 * (m + n), 12345.0f);
      const std::string what = inputs + " in " + shape_text(shape);
      ASSERT_TRUE(clean(backend().reduce_2d(shape, x, out), what));
      std::vector<float> expected(3 * (m + n));
      for (int c = 0; c < n; ++c) {
        std::vector<float> column;
        for (int r = 0; r < m; ++r) column.push_back(x[r * n + c]);
        const auto reference = sum_max_min(column);
        for (int k = 0; k < 3; ++k) expected[k * n + c] = static_cast<float>(reference[k]);
      }
      for (int r = 0; r < m; ++r) {
        const auto reference = sum_max_min({x.begin() + r * n, x.begin() + (r + 1) * n});
        for (int k = 0; k < 3; ++k) expected[3 * n + k * m + r] = static_cast<float>(reference[k]);
      }
      const std::vector<float> axis0(out.begin(), out.begin() + 3 * n);
      const std::vector<float> axis1(out.begin() + 3 * n, out.end());
      EXPECT_TRUE(matches_with_nans(axis0, {expected.begin(), expected.begin() + 3 * n},
                                    sizes({3, n}), "{sum, max, min}<0> of " + what));
      EXPECT_TRUE(matches_with_nans(axis1, {expected.begin() + 3 * n, expected.end()},
                                    sizes({3, m}), "{sum, max, min}<1> of " + what));
    }
  }
}

// ---- masked loads and stores ----------------------------------------------------------

class TileMaskedMemory : public TileOnBackend {};
CUDALAB_ON_ALL_BACKENDS(TileMaskedMemory);

// x's allocation holds exactly its n elements: a masked-out offset past it
// must not be read (the emulator would report it, the interpreter throw).
TEST_P(TileMaskedMemory, AMaskedLoadNeverTouchesElementsPastTheEnd) {
  for (const int n : {1, 97, 256, 1000}) {
    const std::vector<float> x = rng_.uniform(n, -1.0f, 1.0f);
    const float other = rng_.uniform(1, 10.0f, 20.0f)[0];
    const int whole = (n + kBlock - 1) / kBlock * kBlock;
    std::vector<float> out = rng_.uniform(whole, -5.0f, -4.0f);
    std::vector<float> expected(whole, other);
    std::copy(x.begin(), x.end(), expected.begin());
    const std::string what = "masked load of " + std::to_string(n) + " elements";
    ASSERT_TRUE(clean(backend().masked_load(x, other, out), what));
    EXPECT_TRUE(matches(out, expected, {}, what + " (`other` past the end)"));
  }
}

TEST_P(TileMaskedMemory, AMaskedStoreLeavesEveryOtherElementAlone) {
  for (const int n : {1, 97, 1000}) {
    const std::vector<float> x = rng_.uniform(n, -1.0f, 1.0f);
    std::vector<float> out = rng_.uniform(n, 5.0f, 6.0f);
    std::vector<float> expected = out;
    for (int i = 0; i < n; ++i) {
      if (i % 3 != 1) expected[i] = x[i];
    }
    const std::string what = "store masked by (i < n) & (i % 3 != 1), n = " + std::to_string(n);
    ASSERT_TRUE(clean(backend().masked_store(x, out), what));
    EXPECT_TRUE(matches(out, expected, {}, what));
  }
}

TEST_P(TileMaskedMemory, ARowMaskAndAColumnMaskCombineByBroadcasting) {
  struct Case {
    int rows, columns, ld;
  };
  for (const Case shape :
       {Case{16, 64, 64}, Case{5, 37, 40}, Case{1, 1, 3}, Case{16, 1, 1}, Case{3, 64, 100}}) {
    const std::vector<float> x =
        rng_.uniform((shape.rows - 1) * shape.ld + shape.columns, -1.0f, 1.0f);
    const float other = rng_.uniform(1, 10.0f, 20.0f)[0];
    std::vector<float> out = rng_.uniform(16 * 64, -5.0f, -4.0f);
    std::vector<float> expected = out;
    for (int r = 0; r < shape.rows; ++r) {
      for (int c = 0; c < 64; ++c)
        expected[r * 64 + c] = c < shape.columns ? x[r * shape.ld + c] : other;
    }
    const std::string what = "[16, 64] load of a " + std::to_string(shape.rows) + " x " +
                             std::to_string(shape.columns) + " matrix (ld " +
                             std::to_string(shape.ld) + "), rows & columns, stored under rows";
    ASSERT_TRUE(
        clean(backend().masked_load_2d(x, shape.rows, shape.columns, shape.ld, other, out), what));
    EXPECT_TRUE(matches(out, expected, sizes({16, 64}), what));
  }
}

TEST_P(TileMaskedMemory, AnUnmaskedLoadPastTheEndIsCaught) {
  if (!on_emulator() && !on_interpreter()) {
    GTEST_SKIP() << "a read past an allocation is undefined on the GPU; the emulator and the "
                    "interpreter check it";
  }
  const std::vector<float> x = rng_.uniform(200, -1.0f, 1.0f);  // the program reads 256
  std::vector<float> out(kBlock, 0.0f);
  expect_reports();
  const Observation observation = backend().unmasked_load(x, out);
  if (on_emulator()) {
    EXPECT_GT(observation.report_count, 0u) << "the emulator should report reads of x[200..255]";
    ASSERT_FALSE(observation.reports.empty());
    EXPECT_NE(observation.reports.front().find("out_of_bounds"), std::string::npos)
        << observation.reports.front();
  } else {
    EXPECT_EQ(observation.error_type, "std::logic_error") << "std::out_of_range expected";
    EXPECT_NE(observation.error.find("element offset 200 lies outside every device allocation"),
              std::string::npos)
        << observation.error;
  }
}

TEST_P(TileMaskedMemory, AnUnmaskedStorePastTheEndIsCaught) {
  const int n = 1000;  // the last program's store reaches 1024: 24 guard elements
  const std::vector<float> x = rng_.uniform(n, -1.0f, 1.0f);
  std::vector<float> out(n, 0.0f);
  expect_reports();
  const Observation observation = backend().unmasked_store(x, out);
  if (on_emulator()) {
    EXPECT_GT(observation.report_count, 0u)
        << "the emulator should report writes of out[1000..1023]";
    ASSERT_FALSE(observation.reports.empty());
    EXPECT_NE(observation.reports.front().find("out_of_bounds"), std::string::npos)
        << observation.reports.front();
  } else if (on_interpreter()) {
    EXPECT_EQ(observation.error_type, "std::logic_error") << "std::out_of_range expected";
    EXPECT_NE(observation.error.find("element offset 1000 lies outside every device allocation"),
              std::string::npos)
        << observation.error;
  } else {
    EXPECT_EQ(observation.guard_elements_changed, 24u) << "the GPU writes the guards behind out";
  }
}

// ---- block pointers -------------------------------------------------------------------

class TileBlockPointers : public TileOnBackend {
 protected:
  // A 13 x 21 tensor in three layouts: row-major, strided in both
  // dimensions (gaps between rows and between elements), column-major.
  static std::vector<StridedTensor> layouts() {
    const int rows = 13, columns = 21;
    return {
        {rows, columns, columns, 1}, {rows, columns, 2 * columns + 3, 2}, {rows, columns, 1, rows}};
  }
  static std::string layout_text(const StridedTensor& t) {
    return std::to_string(t.rows) + " x " + std::to_string(t.columns) + " tensor, strides (" +
           std::to_string(t.row_stride) + ", " + std::to_string(t.column_stride) + ")";
  }
  // Windows from one and a half windows above and left of the tensor (the
  // first row and column of windows lie wholly outside it) to wholly below
  // and right of it.
  static int first_offset(int window) { return -(window + window / 2); }
  static int windows_over(int size, int window) {
    return (size - first_offset(window) + window - 1) / window + 1;
  }
};
CUDALAB_ON_ALL_BACKENDS(TileBlockPointers);

TEST_P(TileBlockPointers, LoadsPadWhatLiesOutsideTheTensor) {
  for (const auto& window : WindowShapes::list()) {
    const int bm = window[0], bn = window[1];
    for (const StridedTensor& tensor : layouts()) {
      for (const bool pad_with_nan : {false, true}) {
        const std::vector<float> x = rng_.uniform(tensor.storage(), -1.0f, 1.0f);
        const int row0 = first_offset(bm), column0 = first_offset(bn);
        const Grid grid{windows_over(tensor.rows, bm), windows_over(tensor.columns, bn), 1};
        std::vector<float> out = rng_.uniform(grid.x * grid.y * bm * bn, 5.0f, 6.0f);
        std::vector<float> expected(out.size());
        for (int i = 0; i < grid.x; ++i) {
          for (int j = 0; j < grid.y; ++j) {
            for (int e = 0; e < bm * bn; ++e) {
              const int r = row0 + i * bm + e / bn, c = column0 + j * bn + e % bn;
              const bool inside = r >= 0 && r < tensor.rows && c >= 0 && c < tensor.columns;
              expected[(i * grid.y + j) * bm * bn + e] =
                  inside ? x[r * tensor.row_stride + c * tensor.column_stride]
                         : (pad_with_nan ? kNaN : 0.0f);
            }
          }
        }
        const std::string what = shape_text(window) + " windows of a " + layout_text(tensor) +
                                 (pad_with_nan ? ", NaN padding" : ", zero padding");
        ASSERT_TRUE(clean(
            backend().block_ptr_load(window, tensor, x, row0, column0, grid, pad_with_nan, out),
            what));
        EXPECT_TRUE(matches_with_nans(out, expected, {}, what));
      }
    }
  }
}

TEST_P(TileBlockPointers, StoresSkipWhatLiesOutsideTheTensor) {
  for (const auto& window : WindowShapes::list()) {
    const int bm = window[0], bn = window[1];
    for (const StridedTensor& tensor : layouts()) {
      const std::vector<float> x = rng_.uniform(tensor.storage(), -1.0f, 1.0f);
      // The storage's gaps between elements must keep their values too.
      std::vector<float> out = rng_.uniform(tensor.storage(), 5.0f, 6.0f);
      std::vector<float> expected = out;
      for (int r = 0; r < tensor.rows; ++r) {
        for (int c = 0; c < tensor.columns; ++c) {
          const int at = r * tensor.row_stride + c * tensor.column_stride;
          expected[at] = x[at] + 1.0f;
        }
      }
      const Grid grid{windows_over(tensor.rows, bm), windows_over(tensor.columns, bn), 1};
      const std::string what = shape_text(window) + " windows into a " + layout_text(tensor);
      ASSERT_TRUE(clean(backend().block_ptr_store(window, tensor, x, first_offset(bm),
                                                  first_offset(bn), grid, out),
                        what));
      EXPECT_TRUE(matches(out, expected, {}, what));
    }
  }
}

// ---- dot ------------------------------------------------------------------------------

class TileDot : public TileOnBackend {
 protected:
  static const char* element_name(Element e) {
    return e == Element::fp32 ? "fp32" : e == Element::fp16 ? "fp16" : "bf16";
  }
  // x as the device sees it after rounding to `e` (nearest even).
  static std::vector<float> rounded_to(Element e, std::vector<float> x) {
    for (float& v : x) {
      if (e == Element::fp16) v = numerics::fp16_bits_to_fp32(numerics::fp32_to_fp16_bits(v));
      if (e == Element::bf16) v = numerics::bf16_bits_to_fp32(numerics::fp32_to_bf16_bits(v));
    }
    return x;
  }
  // acc + a @ b in double, and per element sum_k |a_ik b_kj| + |acc_ij|.
  static void reference(int m, int k, int n, const std::vector<float>& a,
                        const std::vector<float>& b, const std::vector<float>& acc,
                        std::vector<double>& product, std::vector<double>& magnitude) {
    product.assign(m * n, 0.0);
    magnitude.assign(m * n, 0.0);
    for (int r = 0; r < m; ++r) {
      for (int c = 0; c < n; ++c) {
        double sum = acc.empty() ? 0.0 : acc[r * n + c];
        double size = std::fabs(sum);
        for (int q = 0; q < k; ++q) {
          sum += static_cast<double>(a[r * k + q]) * b[q * n + c];
          size += std::fabs(static_cast<double>(a[r * k + q]) * b[q * n + c]);
        }
        product[r * n + c] = sum;
        magnitude[r * n + c] = size;
      }
    }
  }
};
CUDALAB_ON_ALL_BACKENDS(TileDot);

TEST_P(TileDot, SmallWholeNumbersGiveExactProducts) {
  for (const Element inputs : {Element::fp32, Element::fp16, Element::bf16}) {
    for (const auto& mkn : DotShapes::list()) {
      const int m = mkn[0], k = mkn[1], n = mkn[2];
      for (const bool with_acc : {false, true}) {
        const std::vector<float> a = whole_numbers(rng_, m * k, -8, 8);
        const std::vector<float> b = whole_numbers(rng_, k * n, -8, 8);
        const std::vector<float> acc =
            with_acc ? whole_numbers(rng_, m * n, -100, 100) : std::vector<float>{};
        std::vector<double> product, magnitude;
        reference(m, k, n, a, b, acc, product, magnitude);
        std::vector<float> out = rng_.uniform(m * n, 1000.0f, 2000.0f);
        const std::string what = std::string("dot of ") + element_name(inputs) + " " +
                                 shape_text({m, k}) + " x " + shape_text({k, n}) +
                                 (with_acc ? " + acc" : "");
        ASSERT_TRUE(clean(backend().dot(inputs, mkn, a, b, acc, out), what));
        EXPECT_TRUE(
            matches(out, std::vector<float>(product.begin(), product.end()), sizes({m, n}), what));
      }
    }
  }
}

TEST_P(TileDot, RandomInputsAreWithinTheFp32AccumulationBound) {
  for (const Element inputs : {Element::fp32, Element::fp16, Element::bf16}) {
    for (const auto& mkn : DotShapes::list()) {
      const int m = mkn[0], k = mkn[1], n = mkn[2];
      const std::vector<float> a = rounded_to(inputs, rng_.uniform(m * k, -1.0f, 1.0f));
      const std::vector<float> b = rounded_to(inputs, rng_.uniform(k * n, -1.0f, 1.0f));
      const std::vector<float> acc = rng_.uniform(m * n, -1.0f, 1.0f);
      std::vector<double> product, magnitude;
      reference(m, k, n, a, b, acc, product, magnitude);
      std::vector<float> out = rng_.uniform(m * n, 1000.0f, 2000.0f);
      const std::string what = std::string("dot of random ") + element_name(inputs) + " " +
                               shape_text({m, k}) + " x " + shape_text({k, n}) + " + acc";
      ASSERT_TRUE(clean(backend().dot(inputs, mkn, a, b, acc, out), what));
      // Products of fp32 (or narrower) values rounded once each, k additions
      // in fp32, in any order: |error| <= (k + 1) * 2^-24 * (sum |a b| + |acc|).
      for (int e = 0; e < m * n; ++e) {
        const double bound = (k + 1) * 0x1p-24 * magnitude[e];
        ASSERT_FALSE(std::isnan(out[e])) << what << ": NaN at " << e;
        EXPECT_LE(std::fabs(out[e] - product[e]), bound)
            << what << ": element (" << e / n << ", " << e % n << ") is " << out[e] << ", expected "
            << product[e];
      }
    }
  }
}

TEST_P(TileDot, AnAccumulatorSumsKStepsAndAMaskedTail) {
  for (const Element inputs : {Element::fp32, Element::fp16, Element::bf16}) {
    for (const auto& shape : AccumulatorShapes::list()) {
      const int m = shape[0], bk = shape[1], n = shape[2];
      const int k = 2 * bk + 5;  // two whole steps and a masked tail
      const int rows = m - 3 > 0 ? m - 3 : m;
      const std::vector<float> a = whole_numbers(rng_, m * k, -8, 8);
      const std::vector<float> b = whole_numbers(rng_, k * n, -8, 8);
      std::vector<double> product, magnitude;
      reference(m, k, n, a, b, {}, product, magnitude);
      std::vector<float> out = rng_.uniform(m * n, 1000.0f, 2000.0f);
      std::vector<float> expected = out;  // rows past `rows` keep their values
      std::copy_n(product.begin(), rows * n, expected.begin());
      const std::string what = std::string("Accumulator<") + std::to_string(m) + ", " +
                               std::to_string(n) + "> over K = " + std::to_string(k) +
                               " in steps of " + std::to_string(bk) + ", " + element_name(inputs) +
                               ", the first " + std::to_string(rows) + " rows stored";
      ASSERT_TRUE(clean(backend().accumulated_dot(inputs, shape, k, a, b, rows, out), what));
      EXPECT_TRUE(matches(out, expected, sizes({m, n}), what));
    }
  }
}

// ---- what the emulator traces ---------------------------------------------------------

class TileTraces : public TileOnBackend {
 protected:
  void SetUp() override {
    TileOnBackend::SetUp();
    if (!IsSkipped() && !on_emulator()) GTEST_SKIP() << "access traces come from the emulator";
  }
  // out[i] = x[i * stride] for 1024 elements, traced; the values checked.
  Observation traced_copy(int stride) {
    const std::vector<float> x = rng_.uniform(1024 * stride, -1.0f, 1.0f);
    std::vector<float> out(1024, 0.0f);
    const Observation observation = backend().strided_copy(x, stride, out, {.trace = true});
    std::vector<float> expected(1024);
    for (int i = 0; i < 1024; ++i) expected[i] = x[i * stride];
    EXPECT_TRUE(clean(observation, "strided copy"));
    EXPECT_TRUE(matches(out, expected, {}, "strided copy, stride " + std::to_string(stride)));
    return observation;
  }
};
CUDALAB_ON_ALL_BACKENDS(TileTraces);

// 1024 elements on 128 threads: 8 slots, each a request of a warp's 32
// consecutive floats, 4 warps: 32 requests of 128 bytes = 4 sectors.
TEST_P(TileTraces, AUnitStrideBlockLoadIsCoalesced) {
  const Observation observation = traced_copy(1);
  ASSERT_TRUE(observation.loads.has_value() && observation.stores.has_value());
  for (const auto& [what, summary] :
       {std::pair{"loads", *observation.loads}, std::pair{"stores", *observation.stores}}) {
    EXPECT_EQ(summary.requests, 32u) << what;
    EXPECT_EQ(summary.sectors, 32u * 4) << what;
    EXPECT_EQ(summary.max_sectors, 4u) << what;
    EXPECT_EQ(summary.bytes, 4u * 1024) << what;
  }
}

// At stride 2 a warp's 32 floats span 256 bytes: 8 sectors per request.
TEST_P(TileTraces, AStrideTwoBlockLoadIsNot) {
  const Observation observation = traced_copy(2);
  ASSERT_TRUE(observation.loads.has_value() && observation.stores.has_value());
  EXPECT_EQ(observation.loads->requests, 32u);
  EXPECT_EQ(observation.loads->sectors, 32u * 8);
  EXPECT_EQ(observation.loads->max_sectors, 8u);
  EXPECT_EQ(observation.loads->bytes, 4u * 1024);
  EXPECT_EQ(observation.stores->sectors, 32u * 4) << "the stores stay unit-stride";
}

}  // namespace
}  // namespace tile_tests
