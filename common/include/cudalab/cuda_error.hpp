// The one exception type of cudalab's error-check family.
//
// CUDA_CHECK, CUDA_CHECK_LAUNCH, CUBLAS_CHECK and NCCL_CHECK (check.hpp) all
// throw cudalab::CudaError. The class itself knows nothing about any backend:
// it stores the error as text and a number, so the GPU build and the emulator
// build of a lab throw the very same type and one `catch` handles both.
#pragma once

#include <stdexcept>
#include <string>

namespace cudalab {

// Where a failed call came from: which library reported it, its status code
// (name, number and description as that library spells them), the expression
// that was checked and the source position of the check.
struct ErrorSite {
  std::string library{};      // "CUDA", "cuBLAS" or "NCCL"
  int code = 0;               // the numeric status, e.g. 9 for cudaErrorInvalidConfiguration
  std::string code_name{};    // e.g. "cudaErrorInvalidConfiguration"
  std::string description{};  // e.g. "invalid configuration argument"
  std::string expression{};   // the checked source text, e.g. "cudaGetLastError()"
  std::string file{};
  int line = 0;
};

// The message every check prints, one line:
//   CUDA error cudaErrorInvalidConfiguration (invalid configuration argument)
//   in 'cudaGetLastError()' at broadcast.cu:42
std::string format_error_message(const ErrorSite& site);

class CudaError : public std::runtime_error {
 public:
  explicit CudaError(ErrorSite site);

  const std::string& library() const { return site_.library; }
  int code() const { return site_.code; }
  const std::string& code_name() const { return site_.code_name; }
  const std::string& description() const { return site_.description; }
  const std::string& expression() const { return site_.expression; }
  const std::string& file() const { return site_.file; }
  int line() const { return site_.line; }

 private:
  ErrorSite site_;
};

// Whether CUDA_CHECK_LAUNCH() should also wait for the kernel to finish, so
// that a fault inside the kernel is reported at its launch rather than at some
// later, unrelated call. Set CUDALAB_SYNC_LAUNCHES=1 in the environment to turn
// it on; it is read once per process.
bool sync_after_launch_requested();

}  // namespace cudalab
