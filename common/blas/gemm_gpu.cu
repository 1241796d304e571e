// cudalab::blas on the GPU: cublasGemmEx, with the math mode set on the
// handle and the matching compute type, every status checked.
#include <cublas_v2.h>
#include <cuda_fp16.h>

#include <utility>

#include "cudalab/blas.hpp"
#include "cudalab/check.hpp"

namespace cudalab::blas {
inline namespace CUDALAB_BLAS_BACKEND {

namespace {

cudaDataType_t cuda_type(ElementType type) {
  switch (type) {
    case ElementType::fp32:
      return CUDA_R_32F;
    case ElementType::fp16:
      return CUDA_R_16F;
    case ElementType::bf16:
      return CUDA_R_16BF;
  }
  return CUDA_R_32F;
}

cublasOperation_t cublas_op(Op op) { return op == Op::none ? CUBLAS_OP_N : CUBLAS_OP_T; }

cublasMath_t cublas_math(MathMode mode) {
  switch (mode) {
    case MathMode::pedantic:
      return CUBLAS_PEDANTIC_MATH;
    case MathMode::tf32_tensor_op:
      return CUBLAS_TF32_TENSOR_OP_MATH;
    case MathMode::default_math:
      return CUBLAS_DEFAULT_MATH;
  }
  return CUBLAS_DEFAULT_MATH;
}

// The compute type that says the same as the math mode: cuBLAS lets the
// compute type override the handle's mode, so both are set to agree.
cublasComputeType_t compute_type(const GemmTypes& types, MathMode mode) {
  if (types.accumulate == Accumulate::fp16) return CUBLAS_COMPUTE_16F;
  switch (mode) {
    case MathMode::pedantic:
      return CUBLAS_COMPUTE_32F_PEDANTIC;
    case MathMode::tf32_tensor_op:
      return CUBLAS_COMPUTE_32F_FAST_TF32;
    case MathMode::default_math:
      return CUBLAS_COMPUTE_32F;
  }
  return CUBLAS_COMPUTE_32F;
}

}  // namespace

Handle::Handle() {
  CUBLAS_CHECK(cublasCreate(&handle_));
  // alpha and beta are host values (gemm passes the address of locals).
  CUBLAS_CHECK(cublasSetPointerMode(handle_, CUBLAS_POINTER_MODE_HOST));
}

// A failing cublasDestroy here (a dead context) was reported by the call that
// killed it; a destructor must not throw.
Handle::~Handle() {
  if (handle_ != nullptr) static_cast<void>(cublasDestroy(handle_));
}

Handle::Handle(Handle&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}

Handle& Handle::operator=(Handle&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr) static_cast<void>(cublasDestroy(handle_));
    handle_ = std::exchange(other.handle_, nullptr);
  }
  return *this;
}

void Handle::set_stream(cudaStream_t stream) { CUBLAS_CHECK(cublasSetStream(handle_, stream)); }

void gemm(Handle& handle, Op op_a, Op op_b, int m, int n, int k, float alpha, const void* a,
          int lda, const void* b, int ldb, float beta, void* c, int ldc, GemmTypes types,
          MathMode math_mode) {
  validate(GemmCall{op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, types, math_mode});
  if (m == 0 || n == 0) return;  // nothing to compute; cuBLAS would accept it too
  CUBLAS_CHECK(cublasSetMathMode(handle.get(), cublas_math(math_mode)));
  // Under CUBLAS_COMPUTE_16F cuBLAS reads alpha and beta as __half.
  const __half alpha_half = __float2half_rn(alpha);
  const __half beta_half = __float2half_rn(beta);
  const bool half_scalars = types.accumulate == Accumulate::fp16;
  const void* alpha_pointer = half_scalars ? static_cast<const void*>(&alpha_half) : &alpha;
  const void* beta_pointer = half_scalars ? static_cast<const void*>(&beta_half) : &beta;
  CUBLAS_CHECK(cublasGemmEx(handle.get(), cublas_op(op_a), cublas_op(op_b), m, n, k, alpha_pointer,
                            a, cuda_type(types.inputs), lda, b, cuda_type(types.inputs), ldb,
                            beta_pointer, c, cuda_type(types.output), ldc,
                            compute_type(types, math_mode), CUBLAS_GEMM_DEFAULT));
}

}  // namespace CUDALAB_BLAS_BACKEND
}  // namespace cudalab::blas
