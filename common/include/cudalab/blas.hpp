// cudalab::blas: the GEMMs the labs call, on cuBLAS (GPU) or on a CPU
// stand-in that honours the math mode (emulator).
//
//   cudalab::blas::Handle handle;
//   cudalab::blas::gemm(handle, Op::none, Op::none, m, n, k, 1.0f, A, m, B, k, 0.0f, C, m,
//                       cudalab::blas::fp32_gemm, MathMode::tf32_tensor_op);
//
// Column-major, as cuBLAS: element (i, j) of an m x n matrix with leading
// dimension ld is at [i + j * ld]. A row-major caller (C++ arrays, PyTorch)
// holds the transposes, and since (A B)^T = B^T A^T it swaps the operands:
// for row-major A (m x k), B (k x n), C (m x n) call
//   gemm(handle, Op::none, Op::none, n, m, k, alpha, B, n, A, k, beta, C, n, ...)
// and C comes out row-major.
//
// Which backend: as in the rest of cudalab (cudalab/kernel.hpp), a file
// compiled by nvcc gets the GPU one (inline namespace on_gpu: cublasGemmEx,
// link cudalab::blas_gpu), a file compiled by the host compiler the CPU
// stand-in (on_emu: cpu_gemm.hpp, link cudalab::blas). One binary can link
// both. A, B and C are device pointers on the GPU and host addresses (which
// is what the emulator's cudaMalloc returns) on the emulator.
//
// Bad arguments throw std::invalid_argument before anything runs (validate()
// in cpu_gemm.hpp); a failing cuBLAS call throws cudalab::CudaError naming the
// call and its status (CUBLAS_CHECK, check.hpp).
#pragma once

#include "cudalab/blas/cpu_gemm.hpp"
#include "cudalab/blas/gemm_types.hpp"
#include "cudalab/kernel.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>

#if CUDALAB_GPU
#include <cublas_v2.h>
#endif

// cudalab::blas is built once per backend and shared by a lab's graded and
// reference builds (CUDALAB_REFERENCE only renames lab code), so its inline
// namespace is on_gpu or on_emu whatever CUDALAB_BACKEND says.
#if CUDALAB_GPU
#define CUDALAB_BLAS_BACKEND on_gpu
#else
#define CUDALAB_BLAS_BACKEND on_emu
#endif

namespace cudalab::blas {
inline namespace CUDALAB_BLAS_BACKEND {

#if CUDALAB_GPU

// Owns a cublasHandle_t (cublasCreate / cublasDestroy). Move-only. Work is
// queued on the handle's stream, the default stream unless set_stream says
// otherwise.
class Handle {
 public:
  Handle();
  ~Handle();
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& other) noexcept;
  Handle& operator=(Handle&& other) noexcept;

  void set_stream(cudaStream_t stream);
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

#else

// The emulator's stand-in needs no state: the GEMM runs on the calling thread
// and is finished when gemm returns.
class Handle {
 public:
  void set_stream(cudaStream_t) {}
};

#endif

// C = alpha * op(A) * op(B) + beta * C; the arguments as in GemmCall (cpu_gemm.hpp).
#if CUDALAB_GPU
void gemm(Handle& handle, Op op_a, Op op_b, int m, int n, int k, float alpha, const void* a,
          int lda, const void* b, int ldb, float beta, void* c, int ldc, GemmTypes types,
          MathMode math_mode);
#else
// A matrix in device memory must fit in its allocation, as on the GPU,
// where cuBLAS would read or write past it (an fp16 buffer passed as fp32,
// an ld too large) and fault; here the call names the matrix instead. (The
// stand-in also computes on host memory, which its own tests use.)
inline void require_inside_allocation(const char* name, const void* pointer, std::size_t bytes,
                                      ElementType type) {
  const std::size_t available = cudalab::emu::device_bytes_from(pointer);
  if (bytes == 0 || available == 0 || available >= bytes) return;
  throw std::invalid_argument(std::string("cudalab::blas::gemm: ") + name + " spans " +
                              std::to_string(bytes) + " bytes as " + to_string(type) +
                              " from its pointer, but only " + std::to_string(available) +
                              " bytes of its device allocation start there (a buffer of "
                              "another element type, a leading dimension too large?)");
}

inline void gemm(Handle&, Op op_a, Op op_b, int m, int n, int k, float alpha, const void* a,
                 int lda, const void* b, int ldb, float beta, void* c, int ldc, GemmTypes types,
                 MathMode math_mode) {
  const GemmCall call{op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, types, math_mode};
  validate(call);
  const MatrixBytes bytes = matrix_bytes(call);
  require_inside_allocation("A", a, bytes.a, types.inputs);
  require_inside_allocation("B", b, bytes.b, types.inputs);
  require_inside_allocation("C", c, bytes.c, types.output);
  cpu_gemm(call);
}
#endif

// Row-major C (m x n) = A (m x k) B (k x n), as the benchmarks' anchors
// compute it, through column-major cuBLAS: a row-major matrix is its
// transpose column-major, so C^T = B^T A^T. With `b_stored_transposed`, B is
// given as stored n x k (row-major B^T), cuBLAS's "TN" case.
inline void gemm_row_major(Handle& handle, int m, int n, int k, const void* a, const void* b,
                           void* c, GemmTypes types, MathMode math_mode,
                           bool b_stored_transposed = false) {
  if (b_stored_transposed) {
    gemm(handle, Op::transpose, Op::none, n, m, k, 1.0f, b, k, a, k, 0.0f, c, n, types, math_mode);
  } else {
    gemm(handle, Op::none, Op::none, n, m, k, 1.0f, b, n, a, k, 0.0f, c, n, types, math_mode);
  }
}

}  // namespace CUDALAB_BLAS_BACKEND
}  // namespace cudalab::blas
