// Lab 02, exercise 2: one GEMM, five cuBLAS modes.
//
// cuBLAS multiplies the same two matrices in very different ways depending on
// two settings: the element types it reads and accumulates in (GemmTypes:
// cublasGemmEx's data types and compute type) and the math mode of the handle
// (cublasSetMathMode). PyTorch never shows you those settings: its flags pick
// them for you. Here you pick them yourself, once per GemmMode, and call the
// GEMM the way every row-major program (C++, PyTorch) calls column-major
// cuBLAS. The tests recognise each mode by its signature: A times the
// identity comes back bit for bit in fp32, rounded to TF32 (nearest even) in
// TF32, rounded to fp16 or bf16 in those; and an fp16 accumulator overflows
// on partial sums that an fp32 one holds.
//
// The exercise is the TODO region of blas_mode and of gemm_in_mode.
#pragma once

#include <stdexcept>
#include <string>

#include "cudalab/blas.hpp"
#include "precision_types.hpp"

namespace lab02 {
inline namespace CUDALAB_BACKEND {

struct BlasMode {
  cudalab::blas::GemmTypes types;
  cudalab::blas::MathMode math_mode;
};

// The types and math mode of each GemmMode (cudalab/blas/gemm_types.hpp has
// the four type sets and the three math modes), with a comment per mode
// saying which PyTorch setting reaches it.
inline BlasMode blas_mode(GemmMode mode) {
  using cudalab::blas::MathMode;
  switch (mode) {
    case GemmMode::fp32:
      // allow_tf32 = False (the default), set_float32_matmul_precision("highest"):
      // PyTorch leaves CUBLAS_DEFAULT_MATH, which without the TF32 flag is IEEE fp32.
      return {cudalab::blas::fp32_gemm, MathMode::pedantic};
    case GemmMode::tf32:
      // allow_tf32 = True, set_float32_matmul_precision("high"): PyTorch sets
      // CUBLAS_TF32_TENSOR_OP_MATH on its handle.
      return {cudalab::blas::fp32_gemm, MathMode::tf32_tensor_op};
    case GemmMode::fp16_fp32_accumulate:
      // torch.matmul on fp16 tensors: CUBLAS_COMPUTE_32F whatever
      // allow_fp16_reduced_precision_reduction says (that flag only lets
      // cuBLAS reduce split-K partial results in lower precision).
      return {cudalab::blas::fp16_gemm_fp32_accumulate, MathMode::default_math};
    case GemmMode::bf16_fp32_accumulate:
      // torch.matmul on bf16 tensors (allow_bf16_reduced_precision_reduction likewise).
      return {cudalab::blas::bf16_gemm_fp32_accumulate, MathMode::default_math};
    case GemmMode::fp16_fp16_accumulate:
      // Not by default: PyTorch asks for CUBLAS_COMPUTE_32F, whatever the flags
      // above say. Releases since 2.7 have allow_fp16_accumulation (off by
      // default), which asks for CUBLAS_COMPUTE_16F.
      return {cudalab::blas::fp16_gemm_fp16_accumulate, MathMode::default_math};
  }
  throw std::invalid_argument("blas_mode: unknown mode " + std::to_string(static_cast<int>(mode)));
}

// Row-major C (m x n) = A (m x k) * B (k x n) in `mode`; a, b, c are device
// pointers holding the mode's input and output types. cudalab/blas.hpp says
// how a row-major caller calls the column-major GEMM.
inline void gemm_in_mode([[maybe_unused]] cudalab::blas::Handle& handle,
                         [[maybe_unused]] GemmMode mode, [[maybe_unused]] int m,
                         [[maybe_unused]] int n, [[maybe_unused]] int k,
                         [[maybe_unused]] const void* a, [[maybe_unused]] const void* b,
                         [[maybe_unused]] void* c) {
  // cuBLAS reads our row-major C as its column-major C^T = B^T A^T, and our
  // row-major A and B as A^T and B^T: so it gets B first, and n with m swapped.
  const BlasMode blas = blas_mode(mode);
  using cudalab::blas::Op;
  cudalab::blas::gemm(handle, Op::none, Op::none, n, m, k, 1.0f, b, n, a, k, 0.0f, c, n, blas.types,
                      blas.math_mode);
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab02
