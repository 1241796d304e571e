// Exercise 2: blas_mode (the types and math mode of each GemmMode) and
// gemm_in_mode (row-major C = A B through column-major cudalab::blas).
//
// Each mode is recognised by a signature only the right mode has, so that a
// mode mapped to any other mode fails:
//   - A times the identity returns A as the GEMM saw it: bit for bit in fp32,
//     rounded to TF32 to nearest even in TF32 (0x3f801000 -> 0x3f800000,
//     0x3f801800 -> 0x3f802000), the host's fp16 / bf16 rounding in those
//     (fp16 subnormals tell fp16 from TF32);
//   - partial sums of 2^20 that cancel to 0: an fp32 accumulator holds them,
//     an fp16 one (largest value 65504) overflows;
//   - shapes with m, n, k all different (1 and primes) against an exact
//     product within the mode's error bound: a missing or wrong operand swap
//     or leading dimension gives errors of the size of the values.
// Outputs start as NaN (an element never written fails) and nothing outside
// C may change.
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

using cudalab::harness::matches;
using cudalab::harness::nothing_written_outside;
using cudalab::harness::ran;
namespace numerics = cudalab::numerics;

using OnBackend = cudalab::harness::OnBackend<harness::Backend, harness::make_emulator_backend,
                                              harness::make_gpu_backend>;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

bool fp16_output(GemmMode mode) { return mode == GemmMode::fp16_fp16_accumulate; }

std::string shape_text(int m, int n, int k) {
  return "m = " + std::to_string(m) + ", n = " + std::to_string(n) + ", k = " + std::to_string(k);
}

class Ex2Modes : public OnBackend {
 protected:
  // C = A B in `mode` on this backend, C filled with NaN first.
  std::vector<float> product(GemmMode mode, int m, int n, int k, const std::vector<float>& a,
                             const std::vector<float>& b, const std::string& what) {
    std::vector<float> c(static_cast<std::size_t>(m) * n, kNaN);
    const harness::Observation run = backend().gemm_in_mode(mode, m, n, k, a, b, c);
    EXPECT_TRUE(ran(run)) << what;
    EXPECT_TRUE(nothing_written_outside(run, what));
    return c;
  }
};

TEST_P(Ex2Modes, Ex2_TimesIdentityShowsHowTheModeRoundsA) {
  const int m = 29, k = 19;  // C = A I is m x k
  std::vector<float> a = rng_.uniform(static_cast<std::size_t>(m) * k, -1.0f, 1.0f);
  // TF32 ties: half of TF32's last place goes to the even neighbour, below
  // (0x3f801000) or above (0x3f801800, 0x3f803000); ties-away and truncation
  // get one of them wrong.
  const std::uint32_t ties[] = {0x3f801000u, 0x3f801800u, 0x3f803000u, 0xbf801000u, 0xbf803000u};
  for (std::size_t i = 0; i < std::size(ties); ++i) a[3 * i] = numerics::float_from_bits(ties[i]);
  // TF32 and fp16 both keep 10 fraction bits: they differ only where fp16's
  // exponents end, below 2^-14, where fp16 has fewer bits (subnormals).
  const float tiny[] = {1.2345e-6f, -7.654e-7f, 2.9e-5f, -4.1e-5f};
  for (std::size_t i = 0; i < std::size(tiny); ++i) a[3 * i + 1] = tiny[i];
  std::vector<float> identity(static_cast<std::size_t>(k) * k, 0.0f);
  for (int i = 0; i < k; ++i) identity[static_cast<std::size_t>(i) * k + i] = 1.0f;

  std::vector<std::vector<float>> signatures;
  for (const GemmMode mode : all_gemm_modes) {
    std::vector<float> expected(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) expected[i] = as_multiplied(mode, a[i]);
    const std::string what = "A * I in mode " + to_string(mode) + " (" + shape_text(m, k, k) + ")";
    const std::vector<float> c = product(mode, m, k, k, a, identity, what);
    EXPECT_TRUE(matches(c, expected, {static_cast<std::size_t>(m), static_cast<std::size_t>(k)},
                        what + "; expected A as this mode rounds it"));
    if (mode != GemmMode::fp16_fp16_accumulate) signatures.push_back(expected);
  }
  // The test can tell the four input roundings apart only if they differ.
  for (std::size_t i = 0; i < signatures.size(); ++i) {
    for (std::size_t j = i + 1; j < signatures.size(); ++j) {
      ASSERT_NE(signatures[i], signatures[j]) << "the test's A does not separate the modes";
    }
  }
}

// Row i of A is 32 times +128 (i + 1) then 32 times -128 (i + 1); B is all
// 256. The exact product is 0, and the partial sums climb to 2^20 (i + 1) on
// the way: an fp32 accumulator holds them exactly, an fp16 accumulator
// overflows (its largest finite value is 65504) after two terms, in any
// summation order that adds neighbouring terms first, split-K included.
TEST_P(Ex2Modes, Ex2_Fp16AccumulatorOverflowsOnPartialSums) {
  const int m = 3, n = 5, k = 64;
  std::vector<float> a(static_cast<std::size_t>(m) * k);
  for (int i = 0; i < m; ++i) {
    for (int p = 0; p < k; ++p) {
      a[static_cast<std::size_t>(i) * k + p] = (p < k / 2 ? 128.0f : -128.0f) * (i + 1);
    }
  }
  const std::vector<float> b(static_cast<std::size_t>(k) * n, 256.0f);
  for (const GemmMode mode : all_gemm_modes) {
    const std::string what = "A B in mode " + to_string(mode) + " with partial sums up to 2^20";
    const std::vector<float> c = product(mode, m, n, k, a, b, what);
    if (mode == GemmMode::fp16_fp16_accumulate) {
      for (std::size_t i = 0; i < c.size(); ++i) {
        EXPECT_FALSE(std::isfinite(c[i]))
            << what << ": C[" << i << "] = " << c[i]
            << ", but an fp16 accumulator cannot hold 2^20 and should overflow (inf or NaN)";
      }
    } else {
      EXPECT_TRUE(matches(c, std::vector<float>(c.size(), 0.0f),
                          {static_cast<std::size_t>(m), static_cast<std::size_t>(n)},
                          what + "; an fp32 accumulator holds every partial sum: exactly 0"));
    }
  }
}

// The bound on |C - exact| per element for an inner sum of k terms in
// `mode`, `exact` computed from the inputs as the GEMM multiplies them
// (cudalab/blas/cpu_gemm.hpp and tests/blas/gemm_check.hpp derive the
// per-step roundoffs; here every one of the k terms may be a rounding step,
// which covers any order cuBLAS picks).
double error_bound(GemmMode mode, int k, double sum_of_magnitudes, double exact) {
  const double u_step =
      mode == GemmMode::fp16_fp16_accumulate ? std::ldexp(1.0, -10) : std::ldexp(1.0, -22);
  const double u_out = fp16_output(mode) ? std::ldexp(1.0, -11) : std::ldexp(1.0, -24);
  const double smallest = fp16_output(mode) ? std::ldexp(1.0, -24) : std::ldexp(1.0, -149);
  const double inner = k * u_step * sum_of_magnitudes;
  return 1.01 * (inner + u_out * (std::fabs(exact) + inner)) + smallest;
}

TEST_P(Ex2Modes, Ex2_RowMajorProductOfAnyShape) {
  const int shapes[][3] = {{1, 1, 1},    {1, 13, 7},  {13, 1, 7}, {7, 13, 1},
                           {37, 29, 53}, {61, 3, 17}, {2, 67, 31}};
  for (const auto& shape : shapes) {
    const int m = shape[0], n = shape[1], k = shape[2];
    const std::vector<float> a = rng_.uniform(static_cast<std::size_t>(m) * k, -1.0f, 1.0f);
    const std::vector<float> b = rng_.uniform(static_cast<std::size_t>(k) * n, -1.0f, 1.0f);
    for (const GemmMode mode : all_gemm_modes) {
      const std::string what = "A B in mode " + to_string(mode) + " (" + shape_text(m, n, k) +
                               "; row-major A (m x k), B (k x n), C (m x n))";
      const std::vector<float> c = product(mode, m, n, k, a, b, what);
      int wrong = 0;
      for (int i = 0; i < m && wrong < 3; ++i) {
        for (int j = 0; j < n && wrong < 3; ++j) {
          // TF32 operands: cuBLAS rounds them to nearest even in the A * I test's
          // shape, but not in every kernel it picks (on the H200, 2026-11-30, a
          // 1 x 1 x 1 TF32 GEMM was 4.5e-4 off the nearest-even product). This
          // test is about the operand order, so it allows any rounding to TF32:
          // less than 2^-10 relative per operand.
          const GemmMode as = mode == GemmMode::tf32 ? GemmMode::fp32 : mode;
          long double exact = 0, magnitudes = 0;
          for (int p = 0; p < k; ++p) {
            const long double term = static_cast<long double>(as_multiplied(
                                         as, a[static_cast<std::size_t>(i) * k + p])) *
                                     as_multiplied(as, b[static_cast<std::size_t>(p) * n + j]);
            exact += term;
            magnitudes += std::fabs(term);
          }
          const double got = c[static_cast<std::size_t>(i) * n + j];
          const double operand_rounding =
              mode == GemmMode::tf32 ? 2 * std::ldexp(1.0, -10) * static_cast<double>(magnitudes)
                                     : 0.0;
          const double bound =
              error_bound(mode, k, static_cast<double>(magnitudes), static_cast<double>(exact)) +
              operand_rounding;
          if (!(std::fabs(got - static_cast<double>(exact)) <= bound)) {
            ++wrong;
            ADD_FAILURE() << what << ": C(" << i << ", " << j << ") = " << got << ", exact "
                          << static_cast<double>(exact) << ", allowed error " << bound;
          }
        }
      }
      if (HasFailure()) return;  // the first failing shape says enough
    }
  }
}

CUDALAB_ON_BOTH_BACKENDS(Ex2Modes);

}  // namespace
}  // namespace lab02
