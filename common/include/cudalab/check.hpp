// The error-check family: every CUDA, cuBLAS and NCCL call in cudalab goes
// through one of these macros, and a failure throws cudalab::CudaError with
// the failed expression, the library's error name and text, and file:line.
//
//   CUDA_CHECK(cudaMalloc(&p, bytes));
//   my_kernel<<<grid, block>>>(...);
//   CUDA_CHECK_LAUNCH();          // a bad launch configuration fails here
//   CUBLAS_CHECK(cublasSgemm(...));   // GPU translation units only
//   NCCL_CHECK(ncclAllReduce(...));   // cudalab/nccl.hpp, on both backends
//
// A kernel that faults while running is reported by the next call that waits
// for it. Set CUDALAB_SYNC_LAUNCHES=1 to make CUDA_CHECK_LAUNCH() wait right
// away, so the fault is reported at the launch that caused it.
#pragma once

#include "cudalab/cuda_error.hpp"
#include "cudalab/kernel.hpp"

#if CUDALAB_GPU
#include <cublas_v2.h>
#endif

namespace cudalab {
inline namespace CUDALAB_BACKEND {

// Throws CudaError unless `status` is cudaSuccess. The macros below fill in
// the expression text and the position; call those rather than this.
// A failed call also leaves its error as the runtime's "last error"; it is
// cleared here, because the exception reports it, and otherwise the next
// CUDA_CHECK_LAUNCH() would blame an innocent launch for it. (A sticky error,
// from a kernel that faulted, stays: the context is unusable afterwards.)
inline void check_cuda(cudaError_t status, const char* expression, const char* file, int line) {
  if (status == cudaSuccess) return;
  static_cast<void>(cudaGetLastError());
  throw CudaError(ErrorSite{"CUDA", static_cast<int>(status), cudaGetErrorName(status),
                            cudaGetErrorString(status), expression, file, line});
}

// After a launch: a bad configuration (too many threads per block, too much
// shared memory) is only visible through cudaGetLastError. CUDA 13 reports
// most of them as cudaErrorInvalidValue, older releases as
// cudaErrorInvalidConfiguration.
inline void check_launch(const char* file, int line) {
  check_cuda(cudaGetLastError(), "cudaGetLastError()", file, line);
  if (sync_after_launch_requested()) {
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize() after the launch", file, line);
  }
}

#if CUDALAB_GPU
inline void check_cublas(cublasStatus_t status, const char* expression, const char* file,
                         int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw CudaError(ErrorSite{"cuBLAS", static_cast<int>(status), cublasGetStatusName(status),
                            cublasGetStatusString(status), expression, file, line});
}
#endif

}  // namespace CUDALAB_BACKEND
}  // namespace cudalab

#define CUDA_CHECK(expr) ::cudalab::check_cuda((expr), #expr, __FILE__, __LINE__)
#define CUDA_CHECK_LAUNCH() ::cudalab::check_launch(__FILE__, __LINE__)
#if CUDALAB_GPU
#define CUBLAS_CHECK(expr) ::cudalab::check_cublas((expr), #expr, __FILE__, __LINE__)
#endif
