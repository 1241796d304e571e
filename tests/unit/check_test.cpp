// The error-check family's message: what a student reads when a call fails.
#include "cudalab/cuda_error.hpp"

#include <gtest/gtest.h>

namespace {

TEST(CudaError, MessageNamesErrorExpressionAndPosition) {
  const cudalab::CudaError error(
      cudalab::ErrorSite{.library = "CUDA",
                         .code = 9,
                         .code_name = "cudaErrorInvalidConfiguration",
                         .description = "invalid configuration argument",
                         .expression = "cudaGetLastError()",
                         .file = "/home/student/cudalab/labs/01_broadcast/broadcast.cu",
                         .line = 42});
  EXPECT_STREQ(error.what(),
               "CUDA error cudaErrorInvalidConfiguration (invalid configuration argument) in "
               "'cudaGetLastError()' at broadcast.cu:42");
  EXPECT_EQ(error.code(), 9);
  EXPECT_EQ(error.code_name(), "cudaErrorInvalidConfiguration");
  EXPECT_EQ(error.expression(), "cudaGetLastError()");
  EXPECT_EQ(error.line(), 42);
}

TEST(CudaError, OtherLibrariesUseTheSameFormat) {
  const cudalab::CudaError error(cudalab::ErrorSite{.library = "cuBLAS",
                                                    .code = 7,
                                                    .code_name = "CUBLAS_STATUS_INVALID_VALUE",
                                                    .description = "an invalid value was used",
                                                    .expression = "cublasSgemm(handle, ...)",
                                                    .file = "gemm.cu",
                                                    .line = 7});
  EXPECT_STREQ(error.what(),
               "cuBLAS error CUBLAS_STATUS_INVALID_VALUE (an invalid value was used) in "
               "'cublasSgemm(handle, ...)' at gemm.cu:7");
}

TEST(CudaError, IsARuntimeError) {
  try {
    throw cudalab::CudaError(cudalab::ErrorSite{.library = "CUDA", .code_name = "x"});
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("CUDA error x"), std::string::npos);
    return;
  }
  FAIL() << "CudaError is not caught as std::runtime_error";
}

}  // namespace
