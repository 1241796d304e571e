// The CPU stand-in for cuBLAS's GEMM, backend-free: the emulator backend of
// cudalab::blas::gemm runs it, and GPU tests use it as the reference that
// cuBLAS is compared with.
//
// It honours the math mode with the arithmetic the hardware uses
// (cudalab/numerics): the same rounding rules as cuBLAS, not the same
// summation order (cuBLAS picks its tiling and split-K per shape and GPU).
//
//   fp32, pedantic/default   C[i][j] = fma(a, b, acc) per term, k in order
//   TF32 tensor op           A and B rounded to TF32 to nearest even (as
//                            cuBLAS does), then the tensor-core block model
//                            chained over k in blocks of 8 (numerics::mma_dot)
//   fp16/bf16, fp32 acc      exact products through the block model, blocks of 16
//   fp16, fp16 acc           the same blocks, the running sum rounded to fp16
//                            (nearest even) after every block
//
// Then C = alpha * acc + beta * C in the accumulation precision, rounded once
// to C's type. With beta == 0, C is not read (as in cuBLAS: it may hold NaN).
#pragma once

#include <cstddef>
#include <cstdint>

#include "cudalab/blas/gemm_types.hpp"

namespace cudalab::blas {

// One GEMM call, column-major as in cuBLAS: C (m x n, leading dimension
// ldc) = alpha * op(A) * op(B) + beta * C, op(A) m x k, op(B) k x n. A is
// stored m x k (lda >= m) when op_a is none, k x m (lda >= k) when it is
// transpose; likewise B, k x n or n x k. fp16 and bf16 elements are their
// 16-bit patterns (__half, __nv_bfloat16, std::uint16_t).
struct GemmCall {
  Op op_a = Op::none;
  Op op_b = Op::none;
  int m = 0, n = 0, k = 0;
  float alpha = 1.0f;
  const void* a = nullptr;
  int lda = 0;
  const void* b = nullptr;
  int ldb = 0;
  float beta = 0.0f;
  void* c = nullptr;
  int ldc = 0;
  GemmTypes types = fp32_gemm;
  MathMode math_mode = MathMode::pedantic;
};

// Throws std::invalid_argument, naming the argument and its value, for a
// negative size, a leading dimension below max(1, rows), a null pointer to
// a non-empty matrix, or a type / math-mode combination outside the table in
// gemm_types.hpp. Both backends call it before anything runs.
void validate(const GemmCall& call);

// How many bytes each matrix of a valid call spans from its pointer
// (column-major: (columns - 1) * ld + rows elements; 0 when it is empty).
struct MatrixBytes {
  std::size_t a = 0, b = 0, c = 0;
};
MatrixBytes matrix_bytes(const GemmCall& call);

// The stand-in itself: validates, then computes on host memory.
void cpu_gemm(const GemmCall& call);

}  // namespace cudalab::blas
