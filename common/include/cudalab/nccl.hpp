// NCCL on both backends, and NCCL_CHECK, the NCCL member of the error-check
// family (check.hpp). nvcc builds get the real <nccl.h> (link cudalab::nccl);
// emulator builds get the emulator's NCCL over virtual devices
// (cudalab/comm/emulated_nccl.hpp), with the same names.
//
//   NCCL_CHECK(ncclAllReduce(send, recv, count, ncclFloat32, ncclSum, comm, stream));
#pragma once

#include <string>

#include "cudalab/check.hpp"
#include "cudalab/kernel.hpp"

#if CUDALAB_GPU
#include <nccl.h>
#else
#include "cudalab/comm/emulated_nccl.hpp"
#endif

namespace cudalab {
inline namespace CUDALAB_BACKEND {

// NCCL has ncclGetErrorString but no function for the enumerator's name.
inline const char* nccl_result_name(ncclResult_t status) {
  switch (status) {
    case ncclSuccess:
      return "ncclSuccess";
    case ncclUnhandledCudaError:
      return "ncclUnhandledCudaError";
    case ncclSystemError:
      return "ncclSystemError";
    case ncclInternalError:
      return "ncclInternalError";
    case ncclInvalidArgument:
      return "ncclInvalidArgument";
    case ncclInvalidUsage:
      return "ncclInvalidUsage";
    case ncclRemoteError:
      return "ncclRemoteError";
    case ncclInProgress:
      return "ncclInProgress";
    default:
      return "ncclResult (unknown)";
  }
}

// ncclInProgress counts as a failure: cudalab only uses blocking
// communicators. The description adds ncclGetLastError's detail (this
// thread's last failure), which names the actual problem.
inline void check_nccl(ncclResult_t status, const char* expression, const char* file, int line) {
  if (status == ncclSuccess) return;
  std::string description = ncclGetErrorString(status);
  const char* detail = ncclGetLastError(nullptr);
  if (detail != nullptr && *detail != '\0') description += ": " + std::string(detail);
  throw CudaError(ErrorSite{"NCCL", static_cast<int>(status), nccl_result_name(status), description,
                            expression, file, line});
}

}  // namespace CUDALAB_BACKEND
}  // namespace cudalab

#define NCCL_CHECK(expr) ::cudalab::check_nccl((expr), #expr, __FILE__, __LINE__)
