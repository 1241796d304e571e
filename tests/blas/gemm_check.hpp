// What the cudalab::blas tests share: random and integer-valued operands in
// each element type, the fp64 reference, and the error bound a GEMM result
// must meet. Host code only (the GPU test includes it too).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cudalab/blas/cpu_gemm.hpp"
#include "cudalab/blas/gemm_types.hpp"
#include "cudalab/numerics.hpp"

namespace blas_test {

using cudalab::blas::Accumulate;
using cudalab::blas::ElementType;
using cudalab::blas::GemmTypes;
using cudalab::blas::MathMode;
using cudalab::blas::Op;

// One of the GEMMs the labs call.
struct Mode {
  const char* name;
  GemmTypes types;
  MathMode math;
};

inline const Mode fp32_pedantic{"fp32_pedantic", cudalab::blas::fp32_gemm, MathMode::pedantic};
inline const Mode tf32{"tf32", cudalab::blas::fp32_gemm, MathMode::tf32_tensor_op};
inline const Mode fp16_fp32acc{"fp16_fp32acc", cudalab::blas::fp16_gemm_fp32_accumulate,
                               MathMode::default_math};
inline const Mode bf16_fp32acc{"bf16_fp32acc", cudalab::blas::bf16_gemm_fp32_accumulate,
                               MathMode::default_math};
inline const Mode fp16_fp16acc{"fp16_fp16acc", cudalab::blas::fp16_gemm_fp16_accumulate,
                               MathMode::default_math};
inline const Mode all_modes[] = {fp32_pedantic, tf32, fp16_fp32acc, bf16_fp32acc, fp16_fp16acc};

// A column-major matrix stored as raw bytes of its element type, with its
// values as doubles for the reference.
struct Matrix {
  int rows = 0, columns = 0, ld = 1;
  ElementType type = ElementType::fp32;
  std::vector<unsigned char> bytes;

  Matrix() = default;
  Matrix(int r, int c, int leading, ElementType t)
      : rows(r),
        columns(c),
        ld(leading),
        type(t),
        bytes(static_cast<std::size_t>(leading) * std::max(c, 1) *
              cudalab::blas::element_bytes(t)) {}

  std::size_t index(int i, int j) const {
    return static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * ld;
  }

  // Stores `value` rounded to the element type (nearest even).
  void set(int i, int j, float value) {
    const std::size_t at = index(i, j);
    if (type == ElementType::fp32) {
      std::memcpy(bytes.data() + at * 4, &value, 4);
      return;
    }
    const std::uint16_t bits = type == ElementType::fp16
                                   ? cudalab::numerics::fp32_to_fp16_bits(value)
                                   : cudalab::numerics::fp32_to_bf16_bits(value);
    std::memcpy(bytes.data() + at * 2, &bits, 2);
  }

  float get(int i, int j) const {
    const std::size_t at = index(i, j);
    if (type == ElementType::fp32) {
      float value;
      std::memcpy(&value, bytes.data() + at * 4, 4);
      return value;
    }
    std::uint16_t bits;
    std::memcpy(&bits, bytes.data() + at * 2, 2);
    return type == ElementType::fp16 ? cudalab::numerics::fp16_bits_to_fp32(bits)
                                     : cudalab::numerics::bf16_bits_to_fp32(bits);
  }

  void* data() { return bytes.data(); }
  const void* data() const { return bytes.data(); }
};

// Uniform in [-1, 1), or integers in [-limit, limit] when `integers`.
inline Matrix random_matrix(int rows, int columns, int ld, ElementType type, std::uint32_t seed,
                            bool integers = false, int limit = 2) {
  Matrix x(rows, columns, ld, type);
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::uniform_int_distribution<int> whole(-limit, limit);
  for (int j = 0; j < columns; ++j) {
    for (int i = 0; i < rows; ++i) {
      x.set(i, j, integers ? static_cast<float>(whole(engine)) : uniform(engine));
    }
  }
  return x;
}

// One GEMM's operands, sized for its transposes, with ld = rows + pad.
struct Problem {
  Op op_a = Op::none, op_b = Op::none;
  int m = 0, n = 0, k = 0;
  float alpha = 1.0f, beta = 0.0f;
  Matrix a, b, c;

  cudalab::blas::GemmCall call(const Mode& mode, const void* a_data, const void* b_data,
                               void* c_data) const {
    return cudalab::blas::GemmCall{op_a,   op_b, m,    n,      k,    alpha,      a_data,   a.ld,
                                   b_data, b.ld, beta, c_data, c.ld, mode.types, mode.math};
  }
  float a_at(int i, int p) const { return op_a == Op::none ? a.get(i, p) : a.get(p, i); }
  float b_at(int p, int j) const { return op_b == Op::none ? b.get(p, j) : b.get(j, p); }
};

inline Problem make_problem(const Mode& mode, Op op_a, Op op_b, int m, int n, int k, float alpha,
                            float beta, std::uint32_t seed, bool integers = false) {
  Problem p;
  p.op_a = op_a;
  p.op_b = op_b;
  p.m = m;
  p.n = n;
  p.k = k;
  p.alpha = alpha;
  p.beta = beta;
  const int a_rows = op_a == Op::none ? m : k, a_columns = op_a == Op::none ? k : m;
  const int b_rows = op_b == Op::none ? k : n, b_columns = op_b == Op::none ? n : k;
  const int pad = 3;  // leading dimensions larger than the rows, as in a sub-matrix
  p.a = random_matrix(a_rows, a_columns, a_rows + pad, mode.types.inputs, seed, integers);
  p.b = random_matrix(b_rows, b_columns, b_rows + pad, mode.types.inputs, seed + 1, integers);
  p.c = random_matrix(m, n, m + pad, mode.types.output, seed + 2, integers);
  return p;
}

// The unit roundoffs of the arithmetic each mode does (cpu_gemm.hpp).
struct Roundoffs {
  double inputs;     // A and B rounded before the products: TF32 only
  double per_block;  // one chained step of the inner sum
  double epilogue;   // alpha * acc + beta * C in the accumulation precision
  double output;     // the store to C's type
};

// Error bound, after Blanchard, Higham, Lopez, Mary and Pranesh, "Mixed
// precision block fused multiply-add: error analysis and application to GPU
// tensor cores", SISC 42(3), 2020. For C = AB with inner dimension k computed
// by chaining block FMAs of b products, inputs rounded with unit roundoff
// u_in and each block's result rounded with unit roundoff u, they bound
//   |C - Ĉ| <= (2 u_in + u_in^2 + γ_{⌈k/b⌉}(u)) |A||B|,  γ_j(u) = j u / (1 - j u).
// Their block sums its terms exactly and rounds to nearest; the H200's block
// truncates each of its b + 1 aligned terms to 25 bits below the largest
// exponent and rounds the sum toward zero (docs/numerics.md), so here
//   u = (b + 1) 2^-25 + 2^-23       (relative to the block's sum of |terms|),
// plus 2^-11 per block under fp16 accumulation. fp32 with one fma per term is
// the classic case b = 1, u = 2^-24. On the GPU cuBLAS's order and block size
// are unknown: `steps` = k (every term a rounding) covers any order.
// The epilogue adds 2 u_acc (beta*C, then the fma) and the store u_out:
//   |Ĉ - (αAB + βC)| <= |α| bound_AB + (2 u_acc + u_out)(|α||A||B|(1 + γ) + |β||C|).
inline Roundoffs roundoffs(const Mode& mode) {
  const double u32 = std::ldexp(1.0, -24), u16 = std::ldexp(1.0, -11);
  const double u_bf16 = std::ldexp(1.0, -8);
  const auto tensor_block = [](int b) {
    return (b + 1) * std::ldexp(1.0, -25) + std::ldexp(1.0, -23);
  };
  const double u_out = mode.types.output == ElementType::fp32   ? u32
                       : mode.types.output == ElementType::fp16 ? u16
                                                                : u_bf16;
  if (mode.math == MathMode::tf32_tensor_op) return {u16, tensor_block(8), u32, u_out};
  if (mode.types.inputs == ElementType::fp32) return {0, u32, u32, u_out};
  if (mode.types.accumulate == Accumulate::fp16) {
    return {0, tensor_block(16) + u16 * (1 + tensor_block(16)), u16, u_out};
  }
  return {0, tensor_block(16), u32, u_out};
}

inline int block_size(const Mode& mode) {
  if (mode.types.inputs == ElementType::fp32) {
    return mode.math == MathMode::tf32_tensor_op ? 8 : 1;
  }
  return 16;
}

inline double gamma(int steps, double u) { return steps * u / (1 - steps * u); }

struct ErrorReport {
  double max_ratio = 0;     // max over C of |error| / bound (<= 1 passes)
  double max_relative = 0;  // max over C of |error| / (|α||A||B| + |β||C|)
  std::string worst{};      // where max_ratio was reached
};

// `result` (C after the GEMM, in C's layout) against the fp64 reference of
// problem `p`. `steps` is the number of chained roundings the bound allows
// for the inner sum: ⌈k/b⌉ for the stand-in, k for cuBLAS.
inline ErrorReport check_against_fp64(const Problem& p, const Mode& mode, const Matrix& result,
                                      int steps) {
  const Roundoffs u = roundoffs(mode);
  const double g = gamma(steps, u.per_block);
  ErrorReport report;
  for (int j = 0; j < p.n; ++j) {
    for (int i = 0; i < p.m; ++i) {
      double exact = 0, magnitude = 0;
      for (int q = 0; q < p.k; ++q) {
        const double product = static_cast<double>(p.a_at(i, q)) * p.b_at(q, j);
        exact += product;
        magnitude += std::fabs(product);
      }
      const double alpha =
          mode.types.accumulate == Accumulate::fp16
              ? cudalab::numerics::fp16_bits_to_fp32(cudalab::numerics::fp32_to_fp16_bits(p.alpha))
              : p.alpha;
      const double beta =
          mode.types.accumulate == Accumulate::fp16
              ? cudalab::numerics::fp16_bits_to_fp32(cudalab::numerics::fp32_to_fp16_bits(p.beta))
              : p.beta;
      const double c_in = p.beta == 0.0f ? 0.0 : p.c.get(i, j);
      const double reference = alpha * exact + beta * c_in;
      const double scale = std::fabs(alpha) * magnitude + std::fabs(beta * c_in);
      const double product_bound =
          std::fabs(alpha) * (2 * u.inputs + u.inputs * u.inputs + g) * magnitude;
      const double epilogue_bound =
          (2 * u.epilogue + u.output) *
          (std::fabs(alpha) * magnitude * (1 + g) + std::fabs(beta * c_in));
      // The smallest subnormal of C's type: a result below it is not rounded relatively.
      const double floor =
          mode.types.output == ElementType::fp16 ? std::ldexp(1.0, -24) : std::ldexp(1.0, -149);
      const double bound = 1.0001 * (product_bound + epilogue_bound) + floor;
      const double error = std::fabs(static_cast<double>(result.get(i, j)) - reference);
      const double ratio = error / bound;
      if (!(ratio <= report.max_ratio)) {  // also catches NaN
        report.max_ratio = std::isnan(ratio) ? INFINITY : ratio;
        report.worst = "C(" + std::to_string(i) + ", " + std::to_string(j) +
                       ") = " + std::to_string(result.get(i, j)) + ", fp64 " +
                       std::to_string(reference) + ", error " + std::to_string(error) + ", bound " +
                       std::to_string(bound);
      }
      if (scale > 0) report.max_relative = std::max(report.max_relative, error / scale);
    }
  }
  return report;
}

inline int model_steps(const Problem& p, const Mode& mode) {
  const int b = block_size(mode);
  return (p.k + b - 1) / b;
}

}  // namespace blas_test
