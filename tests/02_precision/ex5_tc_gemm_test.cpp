// Exercise 5: the tensor-core GEMM, fp16 (m16n8k16) and TF32 (m16n8k8), each
// test on both formats. Small-integer matrices first: every product and sum
// is exact, so any wrong element is a fragment-layout or staging mistake, and
// the failure names the first wrong (row, column). Then random data, bit for
// bit against numerics::mma_dot chained from k = 0 in blocks of 16 (fp16) or
// 8 (TF32) into one fp32 accumulator, the order the exercise asks for; sizes
// 1, primes, K not a multiple of the K-block, one larger than a 128 x 128
// block tile and a K step in every dimension, and K = 0 (C = 0). NaN and
// infinities must land where the model puts them. C starts as NaN (an element
// left unwritten fails) and nothing around C may change.
// The emulator runs about 5,000 mma.sync a second per core, so the sizes stay
// small: a few thousand mma per test and format.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "backend.hpp"
#include "cudalab/harness/testing.hpp"
#include "cudalab/numerics.hpp"
#include "lab02_test_support.hpp"

namespace lab02 {
namespace {

namespace nx = cudalab::numerics;
using cudalab::harness::nothing_written_outside;
using cudalab::harness::Observation;
using cudalab::harness::ran;

using OnBackend = cudalab::harness::OnBackend<harness::Backend, harness::make_emulator_backend,
                                              harness::make_gpu_backend>;

constexpr MmaFormat formats[] = {MmaFormat::fp16, MmaFormat::tf32};

std::string format_name(MmaFormat format) {
  return format == MmaFormat::fp16 ? "tc_gemm_fp16" : "tc_gemm_tf32";
}

// A GEMM's operands as the tensor core reads them: fp16 patterns in the low
// 16 bits, TF32 operands as fp32 patterns (low 13 bits ignored).
struct Problem {
  MmaFormat format;
  int m, n, k;
  std::vector<std::uint32_t> a, b;  // row-major, m x k and k x n

  std::string what() const {
    return format_name(format) + " on " + std::to_string(m) + " x " + std::to_string(n) + " x " +
           std::to_string(k);
  }
};

std::uint32_t operand_bits(float value, MmaFormat format) {
  return format == MmaFormat::fp16 ? nx::fp32_to_fp16_bits(value) : nx::float_bits(value);
}

Problem make_problem(MmaFormat format, int m, int n, int k, const std::vector<float>& a,
                     const std::vector<float>& b) {
  Problem p{format, m, n, k, {}, {}};
  for (float v : a) p.a.push_back(operand_bits(v, format));
  for (float v : b) p.b.push_back(operand_bits(v, format));
  return p;
}

// What the exercise asks for: element (i, j) is mma_dot of row i of A and
// column j of B, from c = 0.
std::vector<float> model_product(const Problem& p) {
  std::vector<float> c(static_cast<std::size_t>(p.m) * p.n);
  std::vector<std::uint32_t> column(p.k);
  for (int j = 0; j < p.n; ++j) {
    for (int x = 0; x < p.k; ++x) column[x] = p.b[static_cast<std::size_t>(x) * p.n + j];
    for (int i = 0; i < p.m; ++i) {
      c[static_cast<std::size_t>(i) * p.n + j] = nx::mma_dot(
          p.a.data() + static_cast<std::size_t>(i) * p.k, column.data(), p.k, 0.0f, p.format);
    }
  }
  return c;
}

// Bit for bit (any NaN matches any NaN), naming the first wrong element.
::testing::AssertionResult same_bits(const std::vector<float>& got,
                                     const std::vector<float>& expected, int n,
                                     const std::string& what) {
  std::size_t wrong = 0, first = 0;
  for (std::size_t e = 0; e < expected.size(); ++e) {
    const bool both_nan = std::isnan(got[e]) && std::isnan(expected[e]);
    if (!both_nan && nx::float_bits(got[e]) != nx::float_bits(expected[e])) {
      if (wrong++ == 0) first = e;
    }
  }
  if (wrong == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << what << ": " << wrong << " of " << expected.size() << " elements wrong; the first is C("
         << first / n << ", " << first % n << "): expected " << expected[first] << " ("
         << hex(nx::float_bits(expected[first])) << "), got " << got[first] << " ("
         << hex(nx::float_bits(got[first])) << ")"
         << (std::isnan(got[first]) ? " (NaN: C starts as NaN, was this element written?)" : "");
}

class Ex5TensorCoreGemm : public OnBackend {
 protected:
  // The student's GEMM on p, C pre-filled with NaN; checks that it ran and
  // wrote nothing outside C.
  std::vector<float> run(const Problem& p) {
    std::vector<float> c(static_cast<std::size_t>(p.m) * p.n,
                         std::numeric_limits<float>::quiet_NaN());
    Observation observation;
    if (p.format == MmaFormat::fp16) {
      const std::vector<std::uint16_t> a(p.a.begin(), p.a.end()), b(p.b.begin(), p.b.end());
      observation = backend().call(harness::entry::tc_gemm_fp16, a, b, c, p.m, p.n, p.k);
    } else {
      std::vector<float> a, b;
      for (std::uint32_t bits : p.a) a.push_back(nx::float_from_bits(bits));
      for (std::uint32_t bits : p.b) b.push_back(nx::float_from_bits(bits));
      observation = backend().call(harness::entry::tc_gemm_tf32, a, b, c, p.m, p.n, p.k);
    }
    EXPECT_TRUE(ran(observation)) << p.what();
    EXPECT_TRUE(nothing_written_outside(observation, p.what()));
    return c;
  }

  void expect_model(const Problem& p) {
    if (HasFailure()) return;  // the first failing case says enough
    EXPECT_TRUE(same_bits(run(p), model_product(p), p.n, p.what()));
  }

  Problem random_problem(MmaFormat format, int m, int n, int k) {
    const auto a = rng_.uniform(static_cast<std::size_t>(m) * k, -1.0f, 1.0f);
    const auto b = rng_.uniform(static_cast<std::size_t>(k) * n, -1.0f, 1.0f);
    return make_problem(format, m, n, k, a, b);
  }
};

TEST_P(Ex5TensorCoreGemm, Ex5_SmallIntegersExactly) {
  // Integers in [-4, 4]: |C| <= 16 k, exact in fp16 products and in the fp32
  // accumulator, so C is the exact product whatever the block arithmetic.
  const int sizes[][3] = {{16, 8, 16}, {16, 8, 8}, {17, 31, 23}, {40, 72, 48}};
  for (MmaFormat format : formats) {
    for (const auto& size : sizes) {
      const int m = size[0], n = size[1], k = size[2];
      const auto ints = [&](std::size_t count) {
        std::vector<float> values;
        for (int v : rng_.uniform(count, -4, 4)) values.push_back(static_cast<float>(v));
        return values;
      };
      const auto a = ints(static_cast<std::size_t>(m) * k);
      const auto b = ints(static_cast<std::size_t>(k) * n);
      std::vector<float> exact(static_cast<std::size_t>(m) * n);
      for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
          double sum = 0;
          for (int x = 0; x < k; ++x) {
            sum += static_cast<double>(a[static_cast<std::size_t>(i) * k + x]) *
                   b[static_cast<std::size_t>(x) * n + j];
          }
          exact[static_cast<std::size_t>(i) * n + j] = static_cast<float>(sum);
        }
      }
      const Problem p = make_problem(format, m, n, k, a, b);
      ASSERT_TRUE(same_bits(run(p), exact, n, p.what() + " (small integers, exact)"))
          << "A wrong element here is a layout mistake: which lane holds which element of the "
             "A, B or C fragment, or where a value of A or B went in shared memory.";
    }
  }
}

TEST_P(Ex5TensorCoreGemm, Ex5_BitForBitLikeTheModelAtAwkwardSizes) {
  // 129 x 133 x 37: two block tiles in m and n, and in k two steps of fp16
  // (32) and three of TF32 (16), the last ones partial; 256 x 160 x 64: the
  // same with rows that allow 16-byte loads. 24 x 18 x 40 and 24 x 40 x 18:
  // rows of only one of A and B allow them (in both formats), so each
  // matrix must be copied its own way.
  const int sizes[][3] = {{1, 1, 1},    {17, 31, 23}, {131, 7, 67},   {5, 9, 3},
                          {5, 7, 0},    {0, 9, 4},    {6, 0, 3},      {64, 64, 64},
                          {24, 18, 40}, {24, 40, 18}, {129, 133, 37}, {256, 160, 64}};
  for (MmaFormat format : formats) {
    for (const auto& size : sizes) expect_model(random_problem(format, size[0], size[1], size[2]));
  }
}

TEST_P(Ex5TensorCoreGemm, Ex5_NaNAndInfinityWhereTheModelPutsThem) {
  const int m = 33, n = 20, k = 40;
  const float inf = std::numeric_limits<float>::infinity();
  for (MmaFormat format : formats) {
    auto a = rng_.uniform(static_cast<std::size_t>(m) * k, -1.0f, 1.0f);
    auto b = rng_.uniform(static_cast<std::size_t>(k) * n, -1.0f, 1.0f);
    a[3 * k + 5] = inf;    // row 3: +-inf, or NaN where b is 0
    a[7 * k + 30] = -inf;  // row 7, in the second K-block
    a[9 * k + 2] = inf;    // with -inf in the same row:
    a[9 * k + 20] = -inf;  // inf - inf is NaN
    b[static_cast<std::size_t>(11) * n + 4] = std::numeric_limits<float>::quiet_NaN();
    b[static_cast<std::size_t>(5) * n + 6] = 0.0f;  // inf * 0 is NaN in C(3, 6)
    expect_model(make_problem(format, m, n, k, a, b));
  }
}

CUDALAB_ON_BOTH_BACKENDS(Ex5TensorCoreGemm);

}  // namespace
}  // namespace lab02
