// Exercise 4: out = a + b with PyTorch's broadcasting, up to 4-D, fp32 and
// fp16. Shapes that cannot broadcast must throw std::invalid_argument naming
// both shapes, before anything is launched or written.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <stdexcept>

#include "lab01_test_support.hpp"
#include "near_two_to_the_31.hpp"

namespace lab01::testing {
namespace {

using cudalab::harness::refused;
using harness::to_string;

std::vector<std::size_t> dims(const Shape& shape) {
  return std::vector<std::size_t>(shape.begin(), shape.end());
}

// Pairs that broadcast: trailing alignment, size-1 and missing dimensions,
// 0-d tensors, primes, and sizes that are not multiples of a block.
const std::vector<std::pair<Shape, Shape>> kCompatible = {{{3, 4}, {4}},
                                                          {{3, 1}, {1, 4}},
                                                          {{2, 1, 5}, {3, 1}},
                                                          {{}, {3, 4}},
                                                          {{7}, {}},
                                                          {{1}, {1}},
                                                          {{5, 1, 1, 1}, {1}},
                                                          {{2, 3, 5, 7}, {3, 1, 7}},
                                                          {{1, 13, 1, 17}, {11, 1, 19, 1}},
                                                          {{31, 1}, {1, 257}},
                                                          {{1, 1, 1, 1}, {4, 1, 1, 3}},
                                                          {{129, 65}, {129, 65}},
                                                          {{2, 1, 1001}, {1, 3, 1}}};

class Ex4Broadcast : public OnBackend {
 protected:
  void expect_fp32_correct(const Shape& a_shape, const Shape& b_shape, int block_size,
                           const RunOptions& options = {}) {
    if (HasFailure()) return;  // report the first failing case only
    const std::vector<float> a = rng_.uniform(harness::element_count(a_shape), -1.0f, 1.0f);
    const std::vector<float> b = harness::nonzero_values(rng_, harness::element_count(b_shape));
    const auto expected = harness::broadcast_add_reference(a, a_shape, b, b_shape,
                                                           [](float p, float q) { return p + q; });
    const Shape out_shape = harness::broadcast_result_shape(a_shape, b_shape);
    std::vector<float> out(expected.size(), std::numeric_limits<float>::quiet_NaN());  // poison
    const std::string what = "broadcast_add (fp32) of " + to_string(a_shape) + " and " +
                             to_string(b_shape) + ", block size " + std::to_string(block_size);
    const Observation run = backend().call(harness::entry::broadcast_add, out, a, a_shape, b,
                                           b_shape, block_size, options);
    ASSERT_TRUE(ran(run)) << what;
    EXPECT_TRUE(matches(out, expected, dims(out_shape), what));
    EXPECT_TRUE(nothing_written_outside(run, what));
    if (run.coverage) {
      EXPECT_TRUE(written_exactly_once(*run.coverage, 0, what));
    }
  }

  void expect_fp16_correct(const Shape& a_shape, const Shape& b_shape, int block_size) {
    if (HasFailure()) return;  // report the first failing case only
    const auto a =
        cudalab::to_half_bits(rng_.uniform(harness::element_count(a_shape), -100.0f, 100.0f));
    const auto b =
        cudalab::to_half_bits(harness::nonzero_values(rng_, harness::element_count(b_shape)));
    const auto expected =
        harness::broadcast_add_reference(a, a_shape, b, b_shape, cudalab::add_half_bits);
    const Shape out_shape = harness::broadcast_result_shape(a_shape, b_shape);
    std::vector<std::uint16_t> out(expected.size(), 0x7e00);  // poison: fp16 NaN
    const std::string what = "broadcast_add (fp16) of " + to_string(a_shape) + " and " +
                             to_string(b_shape) + ", block size " + std::to_string(block_size);
    const Observation run =
        backend().call(harness::entry::broadcast_add_half, out, a, a_shape, b, b_shape, block_size);
    ASSERT_TRUE(ran(run)) << what;
    EXPECT_TRUE(matches(cudalab::half_bits_to_floats(out), cudalab::half_bits_to_floats(expected),
                        dims(out_shape), what));
    EXPECT_TRUE(nothing_written_outside(run, what));
  }
};

TEST_P(Ex4Broadcast, Ex4_ResultShapeFollowsPyTorch) {
  const std::vector<std::pair<std::pair<Shape, Shape>, Shape>> cases = {
      {{{3, 4}, {4}}, {3, 4}},
      {{{3, 1}, {1, 4}}, {3, 4}},
      {{{2, 1, 5}, {3, 1}}, {2, 3, 5}},
      {{{}, {3, 4}}, {3, 4}},
      {{{7}, {}}, {7}},
      {{{}, {}}, {}},
      {{{5, 1, 1, 1}, {1}}, {5, 1, 1, 1}},
      {{{1, 13, 1, 17}, {11, 1, 19, 1}}, {11, 13, 19, 17}},
      {{{0, 3}, {3}}, {0, 3}},
      {{{1}, {0}}, {0}},
      {{{2, 1}, {2, 0}}, {2, 0}},
  };
  for (const auto& [inputs, expected] : cases) {
    const auto& [a, b] = inputs;
    try {
      EXPECT_EQ(backend().call(harness::entry::broadcast_shapes, a, b), expected)
          << "broadcast_shapes(" << to_string(a) << ", " << to_string(b) << ") should be "
          << to_string(expected);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "broadcast_shapes(" << to_string(a) << ", " << to_string(b)
                    << ") threw: " << e.what() << "; expected " << to_string(expected);
    }
  }
}

TEST_P(Ex4Broadcast, Ex4_Fp32MatchesReference) {
  for (const auto& [a_shape, b_shape] : kCompatible) {
    for (int block_size : {64, 256, 1000}) {
      expect_fp32_correct(a_shape, b_shape, block_size);
      expect_fp32_correct(b_shape, a_shape, block_size);  // a + b and b + a
    }
  }
}

TEST_P(Ex4Broadcast, Ex4_Fp16MatchesReference) {
  for (const auto& [a_shape, b_shape] : kCompatible) {
    for (int block_size : {128, 1000}) expect_fp16_correct(a_shape, b_shape, block_size);
  }
}

TEST_P(Ex4Broadcast, Ex4_ZeroSizeShapes) {
  expect_fp32_correct({0, 3}, {3}, 256);
  expect_fp32_correct({1}, {0}, 256);
  expect_fp32_correct({2, 0, 4}, {2, 1, 1}, 256);
  expect_fp16_correct({0}, {1}, 256);
}

TEST_P(Ex4Broadcast, Ex4_LargeShape) {
  if (on_emulator()) {
    expect_fp32_correct({64, 1, 521}, {37, 1}, 256);  // 1.2 M elements
    expect_fp16_correct({1, 2053}, {257, 1}, 256);    // 0.5 M elements
  } else {
    expect_fp32_correct({16, 64, 1, 1031}, {97, 1}, 256);  // 102 M elements
    expect_fp16_correct({8191, 1}, {1, 8209}, 512);        // 67 M elements
  }
}

// out (42966, 49981) = a (42966, 1) + b (49981): 2,147,483,646 = 2^31 - 2
// elements (42966 = 2 * 3^2 * 7 * 11 * 31, 49981 = 151 * 331). broadcast_add's
// 1-D grid in blocks of 1000 has 2,147,484 blocks, 2,147,484,000 threads: 352
// more than 2^31. As an int, their index is negative and passes `i >= size`,
// and they write out[i], 8 GB before out: an illegal-address fault on the
// GPU, unless other memory of the process lies there.
TEST_P(Ex4Broadcast, Ex4_NearTwoToThe31Elements) {
  if (on_emulator()) GTEST_SKIP() << kGpuOnlyReason;
  constexpr int kRows = 42966;
  constexpr int kColumns = 49981;
  constexpr int kBlock = 1000;
  constexpr std::int64_t kSize = std::int64_t{kRows} * kColumns;
  static_assert(kSize == (std::int64_t{1} << 31) - 2);
  static_assert((kSize + kBlock - 1) / kBlock * kBlock > (std::int64_t{1} << 31),
                "the test needs a grid of more than 2^31 threads");
  const std::vector<float> a = harness::nonzero_values(rng_, kRows);
  const std::vector<float> b = harness::nonzero_values(rng_, kColumns);
  std::vector<float> out(static_cast<std::size_t>(kSize),
                         std::numeric_limits<float>::quiet_NaN());  // poison
  const std::string what = "broadcast_add (fp32) of [42966, 1] and [49981], block size 1000";
  const Observation run = backend().call(harness::entry::broadcast_add, out, a, Shape{kRows, 1}, b,
                                         Shape{kColumns}, kBlock);
  ASSERT_TRUE(ran(run)) << what;
  EXPECT_TRUE(is_rows_plus_columns(out, a, b, what));
  EXPECT_TRUE(nothing_written_outside(run, what));
}

TEST_P(Ex4Broadcast, Ex4_IncompatibleShapesThrowAndWriteNothing) {
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{3, 4}, {5}},          {{2, 3}, {3, 2}},       {{0}, {2}},
      {{4, 1, 6}, {1, 5, 7}}, {{1, 2, 3, 4, 5}, {1}}, {{3, -1}, {3, 1}}};
  for (const auto& [a_shape, b_shape] : cases) {
    const std::string call =
        "broadcast_add of " + to_string(a_shape) + " and " + to_string(b_shape);
    std::vector<float> a(std::min<std::size_t>(harness::element_count(a_shape), 1000), 1.0f);
    std::vector<float> b(std::min<std::size_t>(harness::element_count(b_shape), 1000), 2.0f);
    const std::vector<float> poison(64, -12345.0f);
    std::vector<float> out = poison;
    RunOptions options;
    options.trace = on_emulator();
    const Observation run =
        backend().call(harness::entry::broadcast_add, out, a, a_shape, b, b_shape, 256, options);
    ASSERT_TRUE(run.failed()) << call << " must throw std::invalid_argument, but returned";
    EXPECT_EQ(run.error_type, "std::invalid_argument") << call << " threw: " << run.error;
    const bool names_shapes = run.error.find(to_string(a_shape)) != std::string::npos &&
                              run.error.find(to_string(b_shape)) != std::string::npos;
    EXPECT_TRUE(names_shapes) << call << ": the message should name both shapes as "
                              << to_string(a_shape) << " and " << to_string(b_shape)
                              << ", got: " << run.error;
    EXPECT_EQ(out, poison) << call << ": the output changed although the shapes do not broadcast";
    EXPECT_TRUE(nothing_written_outside(run, call));
    if (run.launches) {
      EXPECT_EQ(*run.launches, 0) << call << ": a kernel was launched";
    }
    if (HasFailure()) return;
  }
}

// PyTorch names the first mismatch it meets walking from the last dimension
// to the first: with several, the rightmost one.
TEST_P(Ex4Broadcast, Ex4_MismatchMessageNamesTheDimension) {
  struct Case {
    Shape a, b;
    std::string dimension, sizes;
  };
  const Case cases[] = {{{3, 4}, {5}, "-1", "4 and 5"},
                        {{2, 3}, {4, 5}, "-1", "3 and 5"},
                        {{7, 3, 1}, {2, 3, 4}, "-3", "7 and 2"},
                        {{6, 2, 9, 1}, {5, 4, 9, 8}, "-3", "2 and 4"}};
  for (const Case& c : cases) {
    const std::string call = "broadcast_shapes(" + to_string(c.a) + ", " + to_string(c.b) + ")";
    const auto shapes = [&] { return backend().call(harness::entry::broadcast_shapes, c.a, c.b); };
    EXPECT_TRUE(refused(shapes, "dimension " + c.dimension, call))
        << "say which dimension does not match, counted from the right as PyTorch finds it (the "
        << "rightmost mismatch)";
    EXPECT_TRUE(refused(shapes, c.sizes, call)) << "say which sizes do not match";
  }
}

// Past 2^24 elements a float no longer counts every integer: 2^24 + 1
// becomes 2^24, and a block count computed as ceil(float(size) / 128) is one
// block short, leaving the last element unwritten.
TEST_P(Ex4Broadcast, Ex4_BlockCountPastFloatPrecision) {
  constexpr std::int64_t kSize = (std::int64_t{1} << 24) + 1;
  expect_fp32_correct({kSize}, {1}, 128);
}

CUDALAB_ON_BOTH_BACKENDS(Ex4Broadcast);

class Ex4Coverage : public Ex4Broadcast {};

TEST_P(Ex4Coverage, Ex4_EveryOutputElementWrittenExactlyOnce) {
  RunOptions options;
  options.trace = true;
  expect_fp32_correct({2, 3, 5, 7}, {3, 1, 7}, 64, options);
  expect_fp32_correct({31, 1}, {1, 257}, 1000, options);
}

CUDALAB_ON_EMULATOR_ONLY(Ex4Coverage);

}  // namespace
}  // namespace lab01::testing
