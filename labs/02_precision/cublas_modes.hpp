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
  // TODO(ex2) begin, about 21 lines: a switch with one case per mode, e.g.
  //   case GemmMode::fp32:
  //     // PyTorch: <the flag that gets you here>
  //     return {cudalab::blas::fp32_gemm, cudalab::blas::MathMode::pedantic};
  // and std::invalid_argument after it for a value that is no mode.
  throw std::logic_error("exercise 2: blas_mode(" + to_string(mode) + ") is not written yet");
  // TODO(ex2) end
}

// Row-major C (m x n) = A (m x k) * B (k x n) in `mode`; a, b, c are device
// pointers holding the mode's input and output types. cudalab/blas.hpp says
// how a row-major caller calls the column-major GEMM.
inline void gemm_in_mode([[maybe_unused]] cudalab::blas::Handle& handle,
                         [[maybe_unused]] GemmMode mode, [[maybe_unused]] int m,
                         [[maybe_unused]] int n, [[maybe_unused]] int k,
                         [[maybe_unused]] const void* a, [[maybe_unused]] const void* b,
                         [[maybe_unused]] void* c) {
  // TODO(ex2) begin, about 4 lines: one cudalab::blas::gemm call with
  // blas_mode(mode)'s types and math mode (alpha 1, beta 0).
  throw std::logic_error("exercise 2: gemm_in_mode(" + to_string(mode) + ") is not written yet");
  // TODO(ex2) end
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab02
