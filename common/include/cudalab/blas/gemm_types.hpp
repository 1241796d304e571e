// The vocabulary of cudalab::blas, the same on both backends: which operand
// is transposed, which element types a GEMM reads and writes, how it
// accumulates, and which cuBLAS math mode it asks for.
//
// The GEMMs the labs call (every other combination is refused with
// std::invalid_argument, on both backends alike):
//
//   what                         inputs      C          accumulate  math mode
//   fp32, IEEE                   fp32        fp32       fp32        pedantic (or default)
//   TF32 tensor cores            fp32        fp32       fp32        tf32_tensor_op
//   fp16 / bf16, fp32 accumulate fp16, bf16  fp32/same  fp32        default
//   fp16, fp16 accumulate        fp16        fp16       fp16        default
#pragma once

#include <string>

namespace cudalab::blas {

// cuBLAS's CUBLAS_OP_N and CUBLAS_OP_T.
enum class Op { none, transpose };

enum class ElementType { fp32, fp16, bf16 };

// The precision partial sums are held in: cuBLAS's CUBLAS_COMPUTE_32F
// (and its _PEDANTIC / _FAST_TF32 forms, chosen by the math mode) or
// CUBLAS_COMPUTE_16F.
enum class Accumulate { fp32, fp16 };

// cublasSetMathMode's CUBLAS_PEDANTIC_MATH, CUBLAS_TF32_TENSOR_OP_MATH and
// CUBLAS_DEFAULT_MATH.
enum class MathMode { pedantic, tf32_tensor_op, default_math };

struct GemmTypes {
  ElementType inputs;  // A and B
  ElementType output;  // C
  Accumulate accumulate;
};

// The four type sets of the table above.
inline constexpr GemmTypes fp32_gemm{ElementType::fp32, ElementType::fp32, Accumulate::fp32};
inline constexpr GemmTypes fp16_gemm_fp32_accumulate{ElementType::fp16, ElementType::fp32,
                                                     Accumulate::fp32};
inline constexpr GemmTypes bf16_gemm_fp32_accumulate{ElementType::bf16, ElementType::fp32,
                                                     Accumulate::fp32};
inline constexpr GemmTypes fp16_gemm_fp16_accumulate{ElementType::fp16, ElementType::fp16,
                                                     Accumulate::fp16};

std::string to_string(Op op);
std::string to_string(ElementType type);
std::string to_string(Accumulate accumulate);
std::string to_string(MathMode mode);

// Bytes of one element: 4 for fp32, 2 for fp16 and bf16.
int element_bytes(ElementType type);

}  // namespace cudalab::blas
