// Lab 02 end to end (no exercise of its own): the student's code alone, with
// none of the reference's parts, turns an fp32 matrix into fp16, multiplies
// it on the tensor cores and lands where cuBLAS's fp16 mode lands.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "backend.hpp"
#include "cudalab/harness/testing.hpp"

namespace lab02 {
namespace {

using OnBackend = cudalab::harness::OnBackend<harness::Backend, harness::make_emulator_backend,
                                              harness::make_gpu_backend>;
class EndToEnd : public OnBackend {};
using cudalab::harness::refused;

TEST_P(EndToEnd, Fp16TensorCoreGemmAgreesWithBlas) {
  const int m = 37, n = 29, k = 53;
  const std::vector<float> a = rng_.uniform(static_cast<std::size_t>(m) * k, -1.0f, 1.0f);
  const std::vector<float> b = rng_.uniform(static_cast<std::size_t>(k) * n, -1.0f, 1.0f);
  std::vector<std::uint16_t> a_half(a.size()), b_half(b.size());
  const auto to_fp16 = [&](std::vector<std::uint16_t>& out, const std::vector<float>& in) {
    return backend().call(harness::entry::to_fp16, out, in, static_cast<int>(in.size()));
  };
  ASSERT_TRUE(cudalab::harness::ran(to_fp16(a_half, a)));
  ASSERT_TRUE(cudalab::harness::ran(to_fp16(b_half, b)));
  std::vector<float> mine(static_cast<std::size_t>(m) * n, std::numeric_limits<float>::quiet_NaN());
  ASSERT_TRUE(cudalab::harness::ran(
      backend().call(harness::entry::tc_gemm_fp16, a_half, b_half, mine, m, n, k)));
  std::vector<float> blas(mine.size(), std::numeric_limits<float>::quiet_NaN());
  ASSERT_TRUE(cudalab::harness::ran(
      backend().gemm_in_mode(GemmMode::fp16_fp32_accumulate, m, n, k, a, b, blas)));
  const std::vector<double> exact = backend().call(harness::entry::gemm_fp64, a, b, m, n, k);
  const double mine_error = backend().call(harness::entry::normwise_relative_error, mine, exact);
  const double blas_error = backend().call(harness::entry::normwise_relative_error, blas, exact);
  EXPECT_TRUE(std::isfinite(mine_error));
  EXPECT_GT(mine_error, 0.0) << "an fp16 product of random matrices is never exact";
  EXPECT_LT(mine_error, 2.0 * blas_error + 1e-6)
      << "your tensor-core GEMM should be about as accurate as cuBLAS in fp16";
}

// Each entry declares its vectors' sizes: a vector of the wrong size, or a
// negative count, is refused by name before anything reaches the device,
// and the output keeps what it held.
TEST_P(EndToEnd, WrongSizesAreRefusedByNameAndChangeNothing) {
  const std::vector<float> in(10, 1.5f);
  std::vector<std::uint16_t> out(9, 0xBEEF);
  EXPECT_TRUE(refused([&] { return backend().call(harness::entry::to_fp16, out, in, 10); },
                      "to_fp16: out has 9 elements; the call's other arguments need 10",
                      "to_fp16 of 10 values into 9"));
  EXPECT_EQ(out, std::vector<std::uint16_t>(9, 0xBEEF));
  std::vector<float> x(4, 2.0f);
  EXPECT_TRUE(refused(
      [&] {
        return backend().call(harness::entry::round_operands, x, -1, OperandRounding::nearest_even);
      },
      "round_operands: n = -1 is not a count", "round_operands of -1 values"));
  EXPECT_EQ(x, std::vector<float>(4, 2.0f));
  const std::vector<float> a(6 * 5), b(5 * 7 - 1);
  std::vector<float> c(6 * 7, -1.0f);
  EXPECT_TRUE(
      refused([&] { return backend().call(harness::entry::tc_gemm_tf32, a, b, c, 6, 7, 5); },
              "tc_gemm_tf32: b has 34 elements; the call's other arguments need 35",
              "tc_gemm_tf32 of 6 x 5 by a b one value short"));
  EXPECT_EQ(c, std::vector<float>(6 * 7, -1.0f));
  // Exercise 2's experiment, no entry point, checks its vectors the same way.
  EXPECT_TRUE(refused([&] { return backend().gemm_in_mode(GemmMode::fp32, 6, 7, 5, a, b, c); },
                      "gemm_in_mode: b has 34 elements; the call's other arguments need 35",
                      "gemm_in_mode of 6 x 5 by a b one value short"));
  EXPECT_TRUE(refused([&] { return backend().gemm_in_mode(GemmMode::fp32, 6, -7, 5, a, b, c); },
                      "gemm_in_mode: n = -7 is not a count", "gemm_in_mode with n = -7"));
  EXPECT_EQ(c, std::vector<float>(6 * 7, -1.0f));
}

CUDALAB_ON_BOTH_BACKENDS(EndToEnd);

}  // namespace
}  // namespace lab02
