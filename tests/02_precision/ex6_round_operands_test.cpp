// Exercise 6: round before you multiply. First the student's rounding alone,
// bit for bit against numerics::fp32_to_tf32 on random patterns (NaN and
// infinities among them), on ties and next to them, and at the top of the
// range (a carry to infinity). Then the experiment, with the reference's
// tensor-core GEMM (exercise 5) and cuBLAS (exercise 2) fed the student's
// operands, so that a mistake elsewhere cannot fail this exercise:
//   * A * I: nearest-even operands give cuBLAS TF32's bits everywhere; raw
//     operands are truncated (0x3f801800 comes out 0x3f800000, cuBLAS gives
//     0x3f802000) and ties-away ones round the tie 0x3f801000 up (cuBLAS:
//     down);
//   * positive data, K = 256: the student's mean signed error of the raw
//     product is negative (truncation always shrinks) and several times the
//     size of the nearest-even one's.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "backend.hpp"
#include "cudalab/harness/run_log.hpp"
#include "cudalab/harness/testing.hpp"
#include "cudalab/numerics.hpp"
#include "lab02_test_support.hpp"

namespace lab02 {
namespace {

namespace nx = cudalab::numerics;
using cudalab::harness::note;
using cudalab::harness::ran;

using OnBackend =
    cudalab::harness::OnBackend<harness::Backend, harness::make_emulator_backend,
                                harness::make_gpu_backend, harness::make_reference_emulator_backend,
                                harness::make_reference_gpu_backend>;

constexpr OperandRounding roundings[] = {OperandRounding::raw, OperandRounding::ties_away,
                                         OperandRounding::nearest_even};

// What each operand rounding must give, by the numerics layer.
std::uint32_t expected_bits(std::uint32_t bits, OperandRounding rounding) {
  const float value = nx::float_from_bits(bits);
  switch (rounding) {
    case OperandRounding::raw:
      return bits;
    case OperandRounding::ties_away:
      return nx::float_bits(nx::fp32_to_tf32(value, Tf32Rounding::ties_away));
    case OperandRounding::nearest_even:
      return nx::float_bits(nx::fp32_to_tf32(value, Tf32Rounding::nearest_even));
  }
  return bits;
}

class Ex6RoundOperands : public OnBackend {
 protected:
  // x rounded by the student's round_operands.
  std::vector<float> rounded(std::vector<float> x, OperandRounding rounding) {
    const std::string what =
        "round_operands " + to_string(rounding) + " on " + std::to_string(x.size()) + " values";
    const cudalab::harness::Observation run =
        backend().call(harness::entry::round_operands, x, static_cast<int>(x.size()), rounding);
    EXPECT_TRUE(ran(run)) << what;
    EXPECT_TRUE(cudalab::harness::nothing_written_outside(run, what));
    return x;
  }
};

TEST_P(Ex6RoundOperands, Ex6_RoundingBitForBit) {
  std::vector<std::uint32_t> patterns;
  for (int i = 0; i < 4000; ++i) patterns.push_back(static_cast<std::uint32_t>(rng_.next_u64()));
  // Ties (low 13 bits 0x1000) and their neighbours, under random upper bits
  // with an even and an odd last kept bit.
  for (int i = 0; i < 500; ++i) {
    const std::uint32_t upper = static_cast<std::uint32_t>(rng_.next_u64()) & ~0x1fffu;
    for (std::uint32_t low : {0x1000u, 0x0fffu, 0x1001u, 0x1fffu, 0x0001u, 0x0000u}) {
      patterns.push_back(upper | low);
    }
  }
  for (std::uint32_t special :
       {0x3f801000u, 0x3f801800u, 0x3f803000u, 0xbf801000u, 0x7f7ff000u, 0x7f7fefffu, 0xff7fffffu,
        0x7f800000u, 0xff800000u, 0x7f800001u, 0x7fc00000u, 0xffc01234u, 0x00000000u, 0x80000000u,
        0x00001000u, 0x00003000u, 0x80001fffu, 0x007ff000u}) {
    patterns.push_back(special);
  }
  std::vector<float> x;
  for (std::uint32_t bits : patterns) x.push_back(nx::float_from_bits(bits));

  for (OperandRounding rounding : roundings) {
    const std::vector<float> got = rounded(x, rounding);
    std::size_t wrong = 0, first = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (nx::float_bits(got[i]) != expected_bits(patterns[i], rounding) && wrong++ == 0) {
        first = i;
      }
    }
    EXPECT_EQ(wrong, 0u) << to_string(rounding) << ": " << wrong << " of " << x.size()
                         << " values rounded wrong; the first: " << hex(patterns[first])
                         << " should become " << hex(expected_bits(patterns[first], rounding))
                         << ", got " << hex(nx::float_bits(got[first]));
  }
}

TEST_P(Ex6RoundOperands, Ex6_OnlyNearestEvenReproducesCublasOnATimesI) {
  const int m = 24, k = 40;
  std::vector<float> a = rng_.uniform(static_cast<std::size_t>(m) * k, 0.5f, 2.0f);
  // Element (0, j) of A: a tie with an even last kept bit (nearest even
  // rounds down, ties away up), one above the tie (raw truncates it down),
  // a tie with an odd last bit, a negative tie.
  const std::uint32_t tie_even = 0x3f801000u, above_tie = 0x3f801800u;
  a[0] = nx::float_from_bits(tie_even);
  a[1] = nx::float_from_bits(above_tie);
  a[2] = nx::float_from_bits(0x3f803000u);
  a[3] = nx::float_from_bits(0xbf801000u);
  std::vector<float> identity(static_cast<std::size_t>(k) * k, 0.0f);
  for (int i = 0; i < k; ++i) identity[static_cast<std::size_t>(i) * k + i] = 1.0f;

  std::vector<float> cublas(static_cast<std::size_t>(m) * k,
                            std::numeric_limits<float>::quiet_NaN());
  ASSERT_TRUE(ran(reference().gemm_in_mode(GemmMode::tf32, m, k, k, a, identity, cublas)));
  ASSERT_EQ(nx::float_bits(cublas[0]), 0x3f800000u) << "cuBLAS TF32 rounds the tie to even";
  ASSERT_EQ(nx::float_bits(cublas[1]), 0x3f802000u) << "cuBLAS TF32 rounds to nearest";

  for (OperandRounding rounding : roundings) {
    std::vector<float> c(cublas.size(), std::numeric_limits<float>::quiet_NaN());
    ASSERT_TRUE(ran(reference().call(harness::entry::tc_gemm_tf32, rounded(a, rounding),
                                     rounded(identity, rounding), c, m, k, k)));
    std::size_t differing = 0;
    for (std::size_t i = 0; i < c.size(); ++i) {
      differing += nx::float_bits(c[i]) != nx::float_bits(cublas[i]) ? 1 : 0;
    }
    const std::string what = "A * I with " + to_string(rounding) + " operands";
    note(what + ": " + std::to_string(differing) + " of " + std::to_string(c.size()) +
         " elements differ from cuBLAS TF32");
    const auto element = [&](int j) {
      return "A(0, " + std::to_string(j) + ") = " + hex(nx::float_bits(a[j])) + " came out " +
             hex(nx::float_bits(c[j])) + ", cuBLAS gives " + hex(nx::float_bits(cublas[j]));
    };
    switch (rounding) {
      case OperandRounding::nearest_even:
        EXPECT_EQ(differing, 0u) << what << " should give cuBLAS's bits everywhere; " << differing
                                 << " elements differ. " << element(0) << "; " << element(1);
        break;
      case OperandRounding::raw:
        EXPECT_NE(nx::float_bits(c[1]), nx::float_bits(cublas[1]))
            << what << ": the tensor core truncates raw operands. " << element(1)
            << " (were the operands rounded although the rounding is raw?)";
        break;
      case OperandRounding::ties_away:
        EXPECT_NE(nx::float_bits(c[0]), nx::float_bits(cublas[0]))
            << what << ": a tie rounds away from zero. " << element(0);
        EXPECT_EQ(nx::float_bits(c[1]), nx::float_bits(cublas[1]))
            << what << ": away from a tie it rounds to nearest. " << element(1);
        break;
    }
  }
}

TEST_P(Ex6RoundOperands, Ex6_MeanSignedError) {
  // (1.5 - 1) / 1, (0.75 - 1) / 1, skipped (exact 0), (2 - -2) / 2, (-3 - -4) / 4.
  const std::vector<float> c = {1.5f, 0.75f, 5.0f, 2.0f, -3.0f};
  const std::vector<double> exact = {1.0, 1.0, 0.0, -2.0, -4.0};
  const double expected = (0.5 - 0.25 + 2.0 + 0.25) / 4.0;
  EXPECT_DOUBLE_EQ(backend().call(harness::entry::mean_signed_error, c, exact), expected)
      << "the mean of (c - exact) / |exact| over the 4 elements whose exact value is not 0";
}

TEST_P(Ex6RoundOperands, Ex6_RawOperandsBiasThePositiveProduct) {
  const int m = 64, n = 64, k = 256;
  const std::vector<float> a = rng_.uniform(static_cast<std::size_t>(m) * k, 0.5f, 1.0f);
  const std::vector<float> b = rng_.uniform(static_cast<std::size_t>(k) * n, 0.5f, 1.0f);
  std::vector<double> exact(static_cast<std::size_t>(m) * n, 0.0);
  for (int i = 0; i < m; ++i) {
    for (int x = 0; x < k; ++x) {
      const double a_ix = a[static_cast<std::size_t>(i) * k + x];
      for (int j = 0; j < n; ++j) {
        exact[static_cast<std::size_t>(i) * n + j] += a_ix * b[static_cast<std::size_t>(x) * n + j];
      }
    }
  }
  double error[3] = {};
  for (OperandRounding rounding : roundings) {
    std::vector<float> c(exact.size(), std::numeric_limits<float>::quiet_NaN());
    ASSERT_TRUE(ran(reference().call(harness::entry::tc_gemm_tf32, rounded(a, rounding),
                                     rounded(b, rounding), c, m, n, k)));
    error[static_cast<int>(rounding)] = backend().call(harness::entry::mean_signed_error, c, exact);
    note("mean signed relative error, " + to_string(rounding) +
         " operands, K = 256, data in [0.5, 1): " +
         std::to_string(error[static_cast<int>(rounding)]));
  }
  const double raw = error[static_cast<int>(OperandRounding::raw)];
  const double nearest = error[static_cast<int>(OperandRounding::nearest_even)];
  // Truncating both operands shrinks each product by about 2^-10 on average;
  // rounding to nearest leaves errors of either sign.
  EXPECT_LT(raw, -2e-4) << "raw operands are truncated: C should come out too small on average";
  EXPECT_GT(std::fabs(raw), 5.0 * std::fabs(nearest))
      << "raw " << raw << " vs nearest even " << nearest
      << ": the bias of raw operands should dwarf the error of rounded ones";
}

CUDALAB_ON_BOTH_BACKENDS(Ex6RoundOperands);

}  // namespace
}  // namespace lab02
