// Lab 02, exercise 2: one GEMM, five cuBLAS modes.
// (Placeholder: the exercise is being written.)
#pragma once

#include "cudalab/blas.hpp"
#include "precision_types.hpp"

namespace lab02 {
inline namespace CUDALAB_BACKEND {

struct BlasMode {
  cudalab::blas::GemmTypes types;
  cudalab::blas::MathMode math_mode;
};

inline BlasMode blas_mode(GemmMode mode) {
  return {cudalab::blas::fp32_gemm, cudalab::blas::MathMode::pedantic};
}

// Row-major C (m x n) = A (m x k) * B (k x n); a, b, c are device pointers
// holding the mode's input and output types.
inline void gemm_in_mode(cudalab::blas::Handle& handle, GemmMode mode, int m, int n, int k,
                         const void* a, const void* b, void* c) {}

}  // namespace CUDALAB_BACKEND
}  // namespace lab02
