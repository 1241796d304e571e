// cudalab::blas on the GPU (labels gpu, numerics): cuBLAS against fp64
// within the bound of gemm_check.hpp, against the CPU stand-in in the same
// binary, and bit for bit with it on integer-valued inputs, exact in every
// mode. Skipped, with the reason, where there is no GPU. Nothing here asserts
// a speed.
//
// With CUDALAB_NUMERICS_OUT=dir (the variable of tests/numerics, so that one
// `ctest -L numerics` records both), the two measuring tests also write their
// figures into dir/blas.json, for the record in docs/results/numerics/.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cudalab/blas.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/device_info.hpp"
#include "cudalab/results.hpp"
#include "gemm_check.hpp"

namespace {

using namespace blas_test;
using cudalab::DeviceBuffer;
using cudalab::numerics::float_bits;
using cudalab::numerics::float_from_bits;

#define SKIP_WITHOUT_GPU() \
  if (!cudalab::has_gpu()) GTEST_SKIP() << cudalab::no_gpu_reason()

struct Shape {
  int m, n, k;
};
const Shape shapes[] = {{1, 1, 1}, {2, 3, 5}, {7, 11, 13}, {17, 33, 129}, {64, 48, 256}};
const Op ops[] = {Op::none, Op::transpose};

Matrix run_cublas(cudalab::blas::Handle& handle, const Problem& p, const Mode& mode) {
  DeviceBuffer<unsigned char> a(p.a.bytes), b(p.b.bytes), c(p.c.bytes);
  cudalab::blas::gemm(handle, p.op_a, p.op_b, p.m, p.n, p.k, p.alpha, a.data(), p.a.ld, b.data(),
                      p.b.ld, p.beta, c.data(), p.c.ld, mode.types, mode.math);
  Matrix result = p.c;
  c.copy_to_host(std::span<unsigned char>(result.bytes));
  return result;
}

// "13.0" from CUDA's 13000.
std::string cuda_version(int encoded) {
  return std::to_string(encoded / 1000) + "." + std::to_string(encoded % 1000 / 10);
}

// Puts `figures` under `section` in dir/blas.json. ctest runs each test in a
// process of its own, one GPU test at a time, so each test reads the file
// the other may have written and adds its part.
void record(const char* section, const nlohmann::json& figures) {
  const char* dir = std::getenv("CUDALAB_NUMERICS_OUT");
  if (dir == nullptr) return;
  const std::string path = std::string(dir) + "/blas.json";
  nlohmann::json file = nlohmann::json::object();
  if (std::ifstream in(path); in) {
    file = nlohmann::json::parse(in, nullptr, false);
    if (!file.is_object()) file = nlohmann::json::object();  // unreadable: start again
  }
  const cudalab::DeviceFacts gpu = cudalab::query_device();
  file["what"] =
      "cudalab::blas on the GPU (tests/blas/blas_gpu_test.cu): cuBLAS and the CPU stand-in "
      "against fp64 and the Blanchard et al. bound of tests/blas/gemm_check.hpp, per mode";
  file["gpu"] = gpu.name;
  file["compute_capability"] = gpu.compute_capability();
  file["driver_cuda_version"] = cuda_version(gpu.driver_version);
  file["runtime_cuda_version"] = cuda_version(gpu.runtime_version);
  file["date"] = cudalab::utc_timestamp_now();
  file["git_revision"] = cudalab::git_revision();
  file[section] = figures;
  std::ofstream(path) << file.dump(2) << "\n";
}

Matrix run_stand_in(const Problem& p, const Mode& mode) {
  Matrix result = p.c;
  cudalab::blas::cpu_gemm(p.call(mode, p.a.data(), p.b.data(), result.data()));
  return result;
}

// cuBLAS's block size and order are its own: the bound allows k roundings.
TEST(BlasGpu, CublasIsWithinTheBoundInEveryModeAndNearTheStandIn) {
  SKIP_WITHOUT_GPU();
  cudalab::blas::Handle handle;
  std::uint32_t seed = 1000;
  nlohmann::json figures = nlohmann::json::object();
  for (const Mode& mode : all_modes) {
    double gpu_worst = 0, cpu_worst = 0, gpu_ratio = 0, cpu_ratio = 0;
    int problems = 0;
    for (const Shape& s : shapes) {
      for (Op op_a : ops) {
        for (Op op_b : ops) {
          for (auto [alpha, beta] : {std::pair{1.0f, 0.0f}, std::pair{1.5f, -0.75f}}) {
            const Problem p = make_problem(mode, op_a, op_b, s.m, s.n, s.k, alpha, beta, seed++);
            const ErrorReport gpu = check_against_fp64(p, mode, run_cublas(handle, p, mode), p.k);
            const ErrorReport cpu =
                check_against_fp64(p, mode, run_stand_in(p, mode), model_steps(p, mode));
            EXPECT_LE(gpu.max_ratio, 1.0)
                << mode.name << " " << s.m << "x" << s.n << "x" << s.k << " op_a "
                << cudalab::blas::to_string(op_a) << " op_b " << cudalab::blas::to_string(op_b)
                << " alpha " << alpha << " beta " << beta << ": " << gpu.worst;
            gpu_worst = std::max(gpu_worst, gpu.max_relative);
            cpu_worst = std::max(cpu_worst, cpu.max_relative);
            gpu_ratio = std::max(gpu_ratio, gpu.max_ratio);
            cpu_ratio = std::max(cpu_ratio, cpu.max_ratio);
            ++problems;
          }
        }
      }
    }
    std::printf(
        "%-14s max |error| / (|a||A||B| + |b||C|): cuBLAS %.3g, stand-in %.3g; "
        "cuBLAS error / bound %.3g\n",
        mode.name, gpu_worst, cpu_worst, gpu_ratio);
    figures[mode.name] = {{"problems", problems},
                          {"max_error_over_abs_product_cublas", gpu_worst},
                          {"max_error_over_abs_product_stand_in", cpu_worst},
                          {"max_error_over_bound_cublas", gpu_ratio},
                          {"max_error_over_bound_stand_in", cpu_ratio}};
  }
  figures["note"] =
      "error over abs product: max over C of |error| / (|alpha||A||B| + |beta||C|); over bound: "
      "max of |error| / the bound (k roundings for cuBLAS, ceil(k/b) for the stand-in); "
      "shapes 1x1x1, 2x3x5, 7x11x13, 17x33x129, 64x48x256, all four transposes, "
      "(alpha, beta) = (1, 0) and (1.5, -0.75), inputs uniform in [-1, 1)";
  record("within_bound", figures);
}

// Small integers are exact in every format and every partial sum stays below
// 2^11, so no mode rounds anywhere: cuBLAS and the stand-in must agree bit
// for bit, whatever order either sums in.
TEST(BlasGpu, IntegerInputsGiveTheSameBitsAsTheStandIn) {
  SKIP_WITHOUT_GPU();
  cudalab::blas::Handle handle;
  std::uint32_t seed = 5000;
  nlohmann::json figures = nlohmann::json::object();
  for (const Mode& mode : all_modes) {
    long compared = 0, differing = 0;
    for (const Shape& s : shapes) {
      for (Op op_a : ops) {
        for (Op op_b : ops) {
          for (auto [alpha, beta] : {std::pair{1.0f, 0.0f}, std::pair{-1.0f, 2.0f}}) {
            const Problem p =
                make_problem(mode, op_a, op_b, s.m, s.n, s.k, alpha, beta, seed++, true);
            const Matrix gpu = run_cublas(handle, p, mode);
            const Matrix cpu = run_stand_in(p, mode);
            for (int j = 0; j < p.n; ++j) {
              for (int i = 0; i < p.m; ++i, ++compared) {
                if (float_bits(gpu.get(i, j)) == float_bits(cpu.get(i, j))) continue;
                if (++differing <= 5) {
                  ADD_FAILURE() << mode.name << " " << s.m << "x" << s.n << "x" << s.k << " C(" << i
                                << ", " << j << "): cuBLAS " << gpu.get(i, j) << ", stand-in "
                                << cpu.get(i, j);
                }
              }
            }
          }
        }
      }
    }
    std::printf("%-14s integer inputs: %ld elements compared, %ld differ\n", mode.name, compared,
                differing);
    EXPECT_EQ(differing, 0) << mode.name;
    figures[mode.name] = {{"elements_compared", compared}, {"elements_differing", differing}};
  }
  record("integer_inputs_bit_for_bit", figures);
}

// The issue's A * I probe: cuBLAS in TF32 mode rounds its inputs to nearest
// even (0x3f801000 -> 0x3f800000, 0x3f801800 -> 0x3f802000), as the stand-in does.
TEST(BlasGpu, Tf32InputsAreRoundedToNearestEvenAsInTheStandIn) {
  SKIP_WITHOUT_GPU();
  const int size = 64;
  Problem p = make_problem(tf32, Op::none, Op::none, size, size, size, 1.0f, 0.0f, 7);
  for (int j = 0; j < size; ++j) {
    for (int i = 0; i < size; ++i) {
      p.a.set(i, j, float_from_bits((i + j) % 2 == 0 ? 0x3f801000u : 0x3f801800u));
      p.b.set(i, j, i == j ? 1.0f : 0.0f);
    }
  }
  cudalab::blas::Handle handle;
  const Matrix gpu = run_cublas(handle, p, tf32);
  const Matrix cpu = run_stand_in(p, tf32);
  for (int j = 0; j < size; ++j) {
    for (int i = 0; i < size; ++i) {
      const std::uint32_t expected = (i + j) % 2 == 0 ? 0x3f800000u : 0x3f802000u;
      ASSERT_EQ(float_bits(gpu.get(i, j)), expected) << "cuBLAS C(" << i << ", " << j << ")";
      ASSERT_EQ(float_bits(cpu.get(i, j)), expected) << "stand-in C(" << i << ", " << j << ")";
    }
  }
}

// The GPU backend checks its arguments before cuBLAS sees them.
TEST(BlasGpu, BadArgumentsAreRefusedBeforeCublasRuns) {
  SKIP_WITHOUT_GPU();
  cudalab::blas::Handle handle;
  DeviceBuffer<float> a(16), b(16), c(16);
  EXPECT_THROW(
      cudalab::blas::gemm(handle, Op::none, Op::none, -1, 2, 2, 1.0f, a.data(), 4, b.data(), 4,
                          0.0f, c.data(), 4, cudalab::blas::fp32_gemm, MathMode::pedantic),
      std::invalid_argument);
  EXPECT_THROW(
      cudalab::blas::gemm(handle, Op::none, Op::none, 4, 2, 2, 1.0f, a.data(), 2, b.data(), 4, 0.0f,
                          c.data(), 4, cudalab::blas::fp32_gemm, MathMode::pedantic),
      std::invalid_argument);
  EXPECT_THROW(cudalab::blas::gemm(handle, Op::none, Op::none, 2, 2, 2, 1.0f, a.data(), 2, b.data(),
                                   2, 0.0f, c.data(), 2, cudalab::blas::bf16_gemm_fp32_accumulate,
                                   MathMode::tf32_tensor_op),
               std::invalid_argument);
}

TEST(BlasGpu, HandleMovesAndStillWorks) {
  SKIP_WITHOUT_GPU();
  cudalab::blas::Handle first;
  cudalab::blas::Handle second(std::move(first));
  const Problem p = make_problem(fp32_pedantic, Op::none, Op::none, 3, 3, 3, 1.0f, 0.0f, 3, true);
  const Matrix gpu = run_cublas(second, p, fp32_pedantic);
  const Matrix cpu = run_stand_in(p, fp32_pedantic);
  EXPECT_EQ(gpu.bytes, cpu.bytes);
}

}  // namespace
