// Exercise 4: the tiled matmul, fp16 in, fp32 out. Small-integer inputs
// first (every product and partial sum is exact, so any wrong element is a
// tiling or masking mistake), then random values in [-1, 1] against a
// double-precision reference within 2 K 2^-24 sum_k |a_ik b_kj| (fp32
// accumulation of exact products). Shapes: the 127 x 65 x 70,
// primes, one element, exact tiles, K = 0 (C = 0) and K below one K step.
// C starts as NaN. On the emulator, the trace bounds the loads: no element of
// A or B is loaded twice by one program (at most BM*K + K*BN elements each),
// and each program loads at least its own rows' and columns' elements.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "cudalab/numerics.hpp"
#include "lab05_test_support.hpp"

namespace lab05 {
namespace {

namespace nx = cudalab::numerics;
using cudalab::harness::nothing_written_outside;
using cudalab::harness::Observation;
using cudalab::harness::ran;
using cudalab::harness::RunOptions;

struct Shape {
  int m, n, k;
  std::string what() const {
    return "matmul " + std::to_string(m) + " x " + std::to_string(n) + " x " + std::to_string(k);
  }
};

constexpr Shape kShapes[] = {{127, 65, 70}, {61, 53, 97}, {1, 1, 1},   {64, 64, 32},
                             {13, 200, 5},  {70, 3, 0},   {5, 129, 33}};

struct Problem {
  Shape shape;
  std::vector<std::uint16_t> a, b;  // fp16 patterns
  std::vector<double> exact, bound;
};

Problem make_problem(const Shape& s, const std::vector<float>& a, const std::vector<float>& b) {
  Problem p{s, {}, {}, {}, {}};
  for (float v : a) p.a.push_back(nx::fp32_to_fp16_bits(v));
  for (float v : b) p.b.push_back(nx::fp32_to_fp16_bits(v));
  p.exact.assign(std::size_t(s.m) * s.n, 0.0);
  p.bound.assign(p.exact.size(), 0.0);
  for (int i = 0; i < s.m; ++i) {
    for (int j = 0; j < s.n; ++j) {
      double sum = 0, magnitude = 0;
      for (int x = 0; x < s.k; ++x) {
        const double product = double(nx::fp16_bits_to_fp32(p.a[std::size_t(i) * s.k + x])) *
                               nx::fp16_bits_to_fp32(p.b[std::size_t(x) * s.n + j]);
        sum += product;
        magnitude += std::fabs(product);
      }
      p.exact[std::size_t(i) * s.n + j] = sum;
      p.bound[std::size_t(i) * s.n + j] = 2.0 * s.k * std::ldexp(magnitude, -24);
    }
  }
  return p;
}

::testing::AssertionResult within_bound(const std::vector<float>& c, const Problem& p) {
  for (std::size_t e = 0; e < c.size(); ++e) {
    const double error = std::fabs(double(c[e]) - p.exact[e]);
    if (!(error <= p.bound[e])) {  // NaN fails too
      return ::testing::AssertionFailure()
             << p.shape.what() << ": C(" << e / p.shape.n << ", " << e % p.shape.n << ") = " << c[e]
             << ", exact " << p.exact[e] << ", allowed error " << p.bound[e]
             << (std::isnan(c[e]) ? " (NaN: C starts as NaN; was it written?)" : "");
    }
  }
  return ::testing::AssertionSuccess();
}

class Ex4Matmul : public OnBackend {
 protected:
  Observation run(const Problem& p, std::vector<float>& c, const RunOptions& options = {}) {
    c.assign(std::size_t(p.shape.m) * p.shape.n, std::numeric_limits<float>::quiet_NaN());
    return backend().call(harness::entry::matmul, p.shape.m, p.shape.n, p.shape.k, p.a, p.b, c,
                          harness::Ordering{}, options);
  }
  void expect_product(const Problem& p) {
    std::vector<float> c;
    const auto observation = run(p, c);
    ASSERT_TRUE(ran(observation)) << p.shape.what();
    EXPECT_TRUE(within_bound(c, p));
    EXPECT_TRUE(nothing_written_outside(observation, p.shape.what()));
  }
  Problem random_problem(const Shape& s, float lo, float hi) {
    return make_problem(s, rng_.uniform(std::size_t(s.m) * s.k, lo, hi),
                        rng_.uniform(std::size_t(s.k) * s.n, lo, hi));
  }
};

TEST_P(Ex4Matmul, Ex4_SmallIntegersExactly) {
  for (const Shape& s : kShapes) {
    const auto a = rng_.uniform(std::size_t(s.m) * s.k, -4, 4);
    const auto b = rng_.uniform(std::size_t(s.k) * s.n, -4, 4);
    expect_product(make_problem(s, std::vector<float>(a.begin(), a.end()),
                                std::vector<float>(b.begin(), b.end())));
    if (HasFailure()) return;
  }
}

TEST_P(Ex4Matmul, Ex4_RandomValuesWithinTheFp32Bound) {
  for (const Shape& s : kShapes) {
    expect_product(random_problem(s, -1.0f, 1.0f));
    if (HasFailure()) return;
  }
}

CUDALAB_ON_ALL_BACKENDS(Ex4Matmul);

class Ex4Trace : public Ex4Matmul {};

TEST_P(Ex4Trace, Ex4_EachProgramLoadsItsPanelsOnce) {
  const auto tile = backend().call(harness::entry::matmul_tile);
  const int bm = tile[0], bn = tile[1];
  for (const Shape& s : {Shape{127, 65, 70}, Shape{61, 53, 97}}) {
    const Problem p = random_problem(s, -1.0f, 1.0f);
    std::vector<float> c;
    const auto observation = run(p, c, RunOptions{.trace = true});
    ASSERT_TRUE(ran(observation)) << s.what();
    const std::uint64_t grid_m = (s.m + bm - 1) / bm, grid_n = (s.n + bn - 1) / bn;
    const std::uint64_t most = grid_m * grid_n * std::uint64_t(bm + bn) * s.k * 2;
    const std::uint64_t least = (grid_n * s.m * s.k + grid_m * s.k * s.n) * 2;
    const std::uint64_t loaded = observation.loads->bytes;
    EXPECT_LE(loaded, most) << s.what() << ": " << grid_m * grid_n
                            << " programs of one (BM, K) panel of A and one (K, BN) of B each read "
                               "at most "
                            << most << " bytes; yours read " << loaded
                            << " (is a block loaded twice, or K's tail past k?)";
    EXPECT_GE(loaded, least) << s.what() << ": each program needs its rows of A and columns of B, "
                             << least << " bytes in all; yours read " << loaded;
    EXPECT_EQ(observation.stores->bytes, std::uint64_t(s.m) * s.n * 4) << s.what();
  }
}

CUDALAB_ON_EMULATOR_ONLY(Ex4Trace);

}  // namespace
}  // namespace lab05
