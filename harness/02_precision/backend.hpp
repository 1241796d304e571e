// Lab 02 behind one interface, whichever backend runs it.
//
// backend_impl.hpp, built by the host compiler (CPU emulator, cudalab::blas's
// CPU stand-in) and by nvcc (cuBLAS), includes the lab's files and
// implements Backend. Host vectors in and out; matrices are row-major, as in
// C++ and PyTorch; fp16 and bf16 elements are their 16-bit patterns.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cudalab/harness/observation.hpp"
#include "given/precision_types.hpp"

namespace lab02::harness {

using cudalab::harness::Observation;
using cudalab::harness::RunOptions;

class Backend : public cudalab::harness::BackendBase {
 public:
  // Exercise 1: element-wise conversions, each by the student's device
  // function in a kernel. `out` comes back with what the device holds.
  virtual Observation to_fp16(std::vector<std::uint16_t>& out, const std::vector<float>& in,
                              const RunOptions& options = {}) = 0;
  virtual Observation to_bf16(std::vector<std::uint16_t>& out, const std::vector<float>& in,
                              const RunOptions& options = {}) = 0;
  virtual Observation to_tf32(std::vector<float>& out, const std::vector<float>& in,
                              Tf32Rounding rounding, const RunOptions& options = {}) = 0;

  // Exercise 2: C (m x n) = A (m x k) * B (k x n) through cudalab::blas in
  // `mode`. A and B are rounded to the mode's input type (nearest even) on
  // the host first, as a.half() does; c holds C's values as fp32 (an fp16 C
  // widened exactly).
  virtual Observation gemm_in_mode(GemmMode mode, int m, int n, int k, const std::vector<float>& a,
                                   const std::vector<float>& b, std::vector<float>& c,
                                   const RunOptions& options = {}) = 0;

  // Exercise 3 (host code): A * B in double precision, and the normwise
  // relative error ||C - exact||_F / ||exact||_F.
  virtual std::vector<double> gemm_fp64(const std::vector<float>& a, const std::vector<float>& b,
                                        int m, int n, int k) = 0;
  virtual double normwise_relative_error(const std::vector<float>& c,
                                         const std::vector<double>& exact) = 0;

  // Exercise 4: the student's predict_mma, one K-block per call in a kernel:
  // block i is a[i*kb .. i*kb+kb), b likewise, c[i], with kb =
  // numerics::mma_k_block(format); d[i] gets the prediction. Operands are
  // bit patterns (fp16/bf16 in the low 16 bits, TF32 as an fp32 pattern).
  virtual Observation predict_mma(MmaFormat format, const std::vector<std::uint32_t>& a,
                                  const std::vector<std::uint32_t>& b, const std::vector<float>& c,
                                  std::vector<float>& d, const RunOptions& options = {}) = 0;
  // The same blocks through the tensor-core instruction itself (harness
  // code): mma.sync on the GPU, the emulator's model of it on the emulator.
  virtual Observation mma_instruction(MmaFormat format, const std::vector<std::uint32_t>& a,
                                      const std::vector<std::uint32_t>& b,
                                      const std::vector<float>& c, std::vector<float>& d,
                                      const RunOptions& options = {}) = 0;

  // Exercise 5: the student's tensor-core GEMM, C (m x n, fp32) = A (m x k) *
  // B (k x n). `c` goes to the device as it is (fill it with NaN first).
  virtual Observation tc_gemm_fp16(int m, int n, int k, const std::vector<std::uint16_t>& a,
                                   const std::vector<std::uint16_t>& b, std::vector<float>& c,
                                   const RunOptions& options = {}) = 0;
  virtual Observation tc_gemm_tf32(int m, int n, int k, const std::vector<float>& a,
                                   const std::vector<float>& b, std::vector<float>& c,
                                   const RunOptions& options = {}) = 0;

  // Exercise 6: the student's operand preparation, in place on `x` (on the
  // device), and their mean signed relative error of C against the exact product.
  virtual Observation round_operands(std::vector<float>& x, OperandRounding rounding,
                                     const RunOptions& options = {}) = 0;
  virtual double mean_signed_error(const std::vector<float>& c,
                                   const std::vector<double>& exact) = 0;
};

std::unique_ptr<Backend> make_emulator_backend();
std::unique_ptr<Backend> make_gpu_backend(std::string* why_not = nullptr);
// The same over solutions/: each exercise is graded with the reference's
// other parts (OnBackend::reference()), e.g. exercise 6's rounding feeds the
// reference's tensor-core GEMM.
std::unique_ptr<Backend> make_reference_emulator_backend();
std::unique_ptr<Backend> make_reference_gpu_backend(std::string* why_not = nullptr);

// The lab's GPU functions on device pointers, as the GPU build compiled them:
// what `./lab bench 02` times (no copies, no checks around them).
struct DeviceFunctions {
  void (*tc_gemm_fp16)(const void* a, const void* b, float* c, int m, int n, int k);
  void (*tc_gemm_tf32)(const float* a, const float* b, float* c, int m, int n, int k);
};
DeviceFunctions gpu_device_functions();

}  // namespace lab02::harness
