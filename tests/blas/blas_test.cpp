// cudalab::blas on the emulator backend (the CPU stand-in): every mode within
// its error bound against fp64, the rounding rules that tell the modes apart,
// and the argument checks. Labels numerics, unit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "cudalab/blas.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/harness/testing.hpp"
#include "gemm_check.hpp"

namespace {

using namespace blas_test;
using cudalab::numerics::float_bits;
using cudalab::numerics::float_from_bits;

struct Shape {
  int m, n, k;
};
// 1, primes, and the brief's 17 x 33 x 129 (k not a multiple of any block).
const Shape shapes[] = {{1, 1, 1}, {2, 3, 5}, {7, 11, 13}, {17, 33, 129}, {5, 3, 67}};
const Op ops[] = {Op::none, Op::transpose};

Matrix run_stand_in(const Problem& p, const Mode& mode) {
  Matrix c = p.c;
  cudalab::blas::Handle handle;
  cudalab::blas::gemm(handle, p.op_a, p.op_b, p.m, p.n, p.k, p.alpha, p.a.data(), p.a.ld,
                      p.b.data(), p.b.ld, p.beta, c.data(), c.ld, mode.types, mode.math);
  return c;
}

TEST(BlasStandIn, EveryModeShapeTransposeAndScalingIsWithinTheBound) {
  std::uint32_t seed = 1;
  for (const Mode& mode : all_modes) {
    for (const Shape& s : shapes) {
      for (Op op_a : ops) {
        for (Op op_b : ops) {
          // alpha and beta exact in fp16, so fp16 accumulation takes them as given.
          for (auto [alpha, beta] : {std::pair{1.0f, 0.0f}, std::pair{1.5f, -0.75f}}) {
            const Problem p = make_problem(mode, op_a, op_b, s.m, s.n, s.k, alpha, beta, seed++);
            const ErrorReport r =
                check_against_fp64(p, mode, run_stand_in(p, mode), model_steps(p, mode));
            EXPECT_LE(r.max_ratio, 1.0)
                << mode.name << " " << s.m << "x" << s.n << "x" << s.k << " op_a "
                << cudalab::blas::to_string(op_a) << " op_b " << cudalab::blas::to_string(op_b)
                << " alpha " << alpha << " beta " << beta << ": " << r.worst;
          }
        }
      }
    }
  }
}

// The modes differ where they should: TF32 rounds its inputs to 10 fraction
// bits (relative error ~1e-4..1e-3), fp32 does not (~1e-7).
TEST(BlasStandIn, Tf32ErrorIsNearItsInputRoundingAndFp32IsFarBelow) {
  const Problem p = make_problem(fp32_pedantic, Op::none, Op::none, 64, 48, 256, 1.0f, 0.0f, 99);
  const ErrorReport fp32_error = check_against_fp64(
      p, fp32_pedantic, run_stand_in(p, fp32_pedantic), model_steps(p, fp32_pedantic));
  const ErrorReport tf32_error =
      check_against_fp64(p, tf32, run_stand_in(p, tf32), model_steps(p, tf32));
  std::printf("max |error| / |A||B|: fp32 %.3g, tf32 %.3g\n", fp32_error.max_relative,
              tf32_error.max_relative);
  EXPECT_LT(fp32_error.max_relative, 1e-6);
  EXPECT_GT(tf32_error.max_relative, 1e-5);
  EXPECT_LT(tf32_error.max_relative, 2e-3);
  EXPECT_GT(tf32_error.max_relative, 50 * fp32_error.max_relative);
}

float gemm_1x1xk(const std::vector<float>& a, const std::vector<float>& b, const Mode& mode) {
  float c = 0;
  const int k = static_cast<int>(a.size());
  cudalab::blas::Handle handle;
  cudalab::blas::gemm(handle, Op::none, Op::none, 1, 1, k, 1.0f, a.data(), 1, b.data(), k, 0.0f, &c,
                      1, mode.types, mode.math);
  return c;
}

// cuBLAS rounds TF32 inputs to nearest even (issue 10, point 5): 1 + 2^-11 is
// a tie and goes to 1; 1 + 3 * 2^-12 goes up to 1 + 2^-10.
TEST(BlasStandIn, Tf32RoundsInputsToNearestEven) {
  EXPECT_EQ(float_bits(gemm_1x1xk({float_from_bits(0x3f801000u)}, {1.0f}, tf32)), 0x3f800000u);
  EXPECT_EQ(float_bits(gemm_1x1xk({float_from_bits(0x3f801800u)}, {1.0f}, tf32)), 0x3f802000u);
  EXPECT_EQ(float_bits(gemm_1x1xk({float_from_bits(0x3f801000u)}, {1.0f}, fp32_pedantic)),
            0x3f801000u);
}

// 2^24 + 1 - 2^24: fp32 with one fma per term loses the 1 (2^24 + 1 rounds
// to 2^24); the tensor core's block sums its aligned terms exactly and keeps it.
TEST(BlasStandIn, Fp32RoundsEveryTermTheTensorCoreBlockDoesNot) {
  const std::vector<float> a = {16777216.0f, 1.0f, -16777216.0f}, b = {1.0f, 1.0f, 1.0f};
  EXPECT_EQ(gemm_1x1xk(a, b, fp32_pedantic), 0.0f);
  EXPECT_EQ(gemm_1x1xk(a, b, tf32), 1.0f);
}

std::vector<std::uint16_t> fp16_vector(const std::vector<float>& values) {
  std::vector<std::uint16_t> bits;
  for (float v : values) bits.push_back(cudalab::numerics::fp32_to_fp16_bits(v));
  return bits;
}

// fp16 accumulation rounds the running sum to fp16 after each block of 16:
// 2048 + 1 is a tie between 2048 and 2050 and goes to 2048, twice; fp32
// accumulation keeps the exact 2050.
TEST(BlasStandIn, Fp16AccumulationRoundsAfterEveryBlock) {
  std::vector<float> b(17, 0.0f);
  b[0] = 2048.0f;
  b[1] = 1.0f;
  b[16] = 1.0f;
  const auto a_bits = fp16_vector(std::vector<float>(17, 1.0f));
  const auto b_bits = fp16_vector(b);
  cudalab::blas::Handle handle;
  std::uint16_t c16 = 0;
  cudalab::blas::gemm(handle, Op::none, Op::none, 1, 1, 17, 1.0f, a_bits.data(), 1, b_bits.data(),
                      17, 0.0f, &c16, 1, fp16_fp16acc.types, fp16_fp16acc.math);
  EXPECT_EQ(cudalab::numerics::fp16_bits_to_fp32(c16), 2048.0f);
  float c32 = 0;
  cudalab::blas::gemm(handle, Op::none, Op::none, 1, 1, 17, 1.0f, a_bits.data(), 1, b_bits.data(),
                      17, 0.0f, &c32, 1, fp16_fp32acc.types, fp16_fp32acc.math);
  EXPECT_EQ(c32, 2050.0f);
}

// beta == 0 does not read C (a NaN there stays out); k == 0 leaves beta * C.
TEST(BlasStandIn, BetaZeroIgnoresCAndEmptyKScalesC) {
  const float a = 2.0f, b = 3.0f;
  float c = std::numeric_limits<float>::quiet_NaN();
  cudalab::blas::Handle handle;
  cudalab::blas::gemm(handle, Op::none, Op::none, 1, 1, 1, 1.0f, &a, 1, &b, 1, 0.0f, &c, 1,
                      cudalab::blas::fp32_gemm, MathMode::pedantic);
  EXPECT_EQ(c, 6.0f);
  cudalab::blas::gemm(handle, Op::none, Op::none, 1, 1, 0, 1.0f, nullptr, 1, nullptr, 1, 0.5f, &c,
                      1, cudalab::blas::fp32_gemm, MathMode::pedantic);
  EXPECT_EQ(c, 3.0f);
}

// A matrix in emulator device memory must fit in its allocation: an fp16 C
// of 4 x 4 passed as fp32 spans twice its bytes (cuBLAS would write past it
// on the GPU). The call names the matrix and writes nothing.
TEST(BlasStandIn, AMatrixLargerThanItsDeviceAllocationIsRefused) {
  const cudalab::DeviceBuffer<float> a(std::vector<float>(16, 1.0f));
  const cudalab::DeviceBuffer<float> b(std::vector<float>(16, 1.0f));
  cudalab::DeviceBuffer<std::uint16_t> c_half(std::vector<std::uint16_t>(16, 0x3c00));
  cudalab::blas::Handle handle;
  EXPECT_TRUE(cudalab::harness::refused(
      [&] {
        cudalab::blas::gemm(handle, Op::none, Op::none, 4, 4, 4, 1.0f, a.data(), 4, b.data(), 4,
                            0.0f, c_half.data(), 4, cudalab::blas::fp32_gemm, MathMode::pedantic);
      },
      "C spans 64 bytes", "a 4 x 4 fp32 C in a 32-byte allocation"));
  EXPECT_EQ(c_half.copy_to_host(), std::vector<std::uint16_t>(16, 0x3c00));
  // The same call with a large enough C runs.
  cudalab::DeviceBuffer<float> c(std::vector<float>(16, 0.0f));
  cudalab::blas::gemm(handle, Op::none, Op::none, 4, 4, 4, 1.0f, a.data(), 4, b.data(), 4, 0.0f,
                      c.data(), 4, cudalab::blas::fp32_gemm, MathMode::pedantic);
  EXPECT_EQ(c.copy_to_host(), std::vector<float>(16, 4.0f));
}

// blas.hpp's recipe: row-major operands, swapped, give a row-major C.
TEST(BlasStandIn, RowMajorCallerSwapsTheOperands) {
  const int m = 2, n = 3, k = 2;
  const std::vector<float> a = {1, 2, 3, 4};        // row-major 2 x 2
  const std::vector<float> b = {1, 0, 2, 0, 1, 3};  // row-major 2 x 3
  std::vector<float> c(m * n, 0.0f);
  cudalab::blas::Handle handle;
  cudalab::blas::gemm(handle, Op::none, Op::none, n, m, k, 1.0f, b.data(), n, a.data(), k, 0.0f,
                      c.data(), n, cudalab::blas::fp32_gemm, MathMode::pedantic);
  EXPECT_EQ(c, (std::vector<float>{1, 2, 8, 3, 4, 18}));  // row-major A B
}

// Every refusal names what was wrong, and nothing is written.
TEST(BlasStandIn, BadArgumentsAreRefusedBeforeAnythingRuns) {
  std::vector<float> a(64, 1.0f), b(64, 1.0f), c(64, -7.0f);
  cudalab::blas::Handle handle;
  const auto call = [&](int m, int n, int k, Op op_a, int lda, int ldb, int ldc, const void* pa,
                        const void* pb, void* pc, cudalab::blas::GemmTypes types, MathMode math) {
    cudalab::blas::gemm(handle, op_a, Op::none, m, n, k, 1.0f, pa, lda, pb, ldb, 0.0f, pc, ldc,
                        types, math);
  };
  const auto fp32 = cudalab::blas::fp32_gemm;
  const auto expect_refusal = [&](auto&& f, const char* words) {
    EXPECT_TRUE(cudalab::harness::refused(f, words, "gemm"));
  };
  const auto P = MathMode::pedantic;
  expect_refusal([&] { call(-1, 2, 2, Op::none, 4, 4, 4, a.data(), b.data(), c.data(), fp32, P); },
                 "m = -1 is negative");
  expect_refusal([&] { call(2, 2, -3, Op::none, 4, 4, 4, a.data(), b.data(), c.data(), fp32, P); },
                 "k = -3 is negative");
  expect_refusal([&] { call(4, 2, 2, Op::none, 3, 4, 4, a.data(), b.data(), c.data(), fp32, P); },
                 "lda = 3 is less than max(1, m = 4)");
  expect_refusal(
      [&] { call(2, 2, 5, Op::transpose, 4, 5, 2, a.data(), b.data(), c.data(), fp32, P); },
      "lda = 4 is less than max(1, k = 5)");
  expect_refusal([&] { call(2, 2, 5, Op::none, 2, 4, 2, a.data(), b.data(), c.data(), fp32, P); },
                 "ldb = 4 is less than max(1, k = 5)");
  expect_refusal([&] { call(4, 2, 2, Op::none, 4, 2, 3, a.data(), b.data(), c.data(), fp32, P); },
                 "ldc = 3");
  expect_refusal([&] { call(0, 2, 2, Op::none, 0, 2, 1, a.data(), b.data(), c.data(), fp32, P); },
                 "lda = 0 is less than max(1, m = 0)");
  expect_refusal([&] { call(2, 2, 2, Op::none, 2, 2, 2, nullptr, b.data(), c.data(), fp32, P); },
                 "A is null but holds a 2 x 2 matrix");
  expect_refusal([&] { call(2, 2, 2, Op::none, 2, 2, 2, a.data(), b.data(), nullptr, fp32, P); },
                 "C is null");
  expect_refusal(
      [&] {
        call(2, 2, 2, Op::none, 2, 2, 2, a.data(), b.data(), c.data(),
             cudalab::blas::fp16_gemm_fp32_accumulate, MathMode::tf32_tensor_op);
      },
      "not one of the supported GEMMs");
  expect_refusal(
      [&] {
        call(2, 2, 2, Op::none, 2, 2, 2, a.data(), b.data(), c.data(),
             GemmTypes{ElementType::bf16, ElementType::bf16, Accumulate::fp16},
             MathMode::default_math);
      },
      "not one of the supported GEMMs");
  for (float value : c) EXPECT_EQ(value, -7.0f);
  // Null is fine where the matrix is empty.
  EXPECT_NO_THROW(call(0, 0, 0, Op::none, 1, 1, 1, nullptr, nullptr, nullptr, fp32, P));
}

}  // namespace
