// Lab 02 behind one interface, whichever backend runs it: its entry points,
// each declared once here (cudalab/harness/entry_points.hpp) and bound to the
// lab's code in backend_impl.hpp, which the host compiler (CPU emulator,
// cudalab::blas's CPU stand-in) and nvcc (cuBLAS) each build. Host vectors in
// and out; matrices are row-major, as in C++ and PyTorch; fp16 and bf16
// elements are their 16-bit patterns.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cudalab/harness/entry_points.hpp"
#include "given/precision_types.hpp"

namespace lab02::harness {

using cudalab::harness::elements;
using cudalab::harness::Entry;
using cudalab::harness::In;
using cudalab::harness::Observation;
using cudalab::harness::Out;
using cudalab::harness::RunOptions;
using cudalab::harness::Size;

namespace entry {
// Exercise 1: element-wise conversions of n values, each by the student's
// device function in a kernel. `out` comes back with what the device holds.
inline constexpr auto conversion_sizes = [](int n) -> std::array<Size, 2> {
  return {{{"out", elements(n, "n")}, {"in", elements(n, "n")}}};
};
using To16Bits = Entry<void(Out<std::uint16_t> out, In<float> in, int n)>;
inline constexpr To16Bits to_fp16{"to_fp16", conversion_sizes};
inline constexpr To16Bits to_bf16{"to_bf16", conversion_sizes};
inline constexpr Entry<void(Out<float> out, In<float> in, int n, Tf32Rounding rounding)> to_tf32{
    "to_tf32", [](int n, Tf32Rounding) { return conversion_sizes(n); }};

// Exercise 3 (host code): A (m x k) * B (k x n) in double precision, and
// the normwise relative error ||C - exact||_F / ||exact||_F.
inline constexpr Entry<std::vector<double>(const std::vector<float>& a, const std::vector<float>& b,
                                           int m, int n, int k)>
    gemm_fp64{"gemm_fp64"};
inline constexpr Entry<double(const std::vector<float>& c, const std::vector<double>& exact)>
    normwise_relative_error{"normwise_relative_error"};

// Exercise 4: the student's predict_mma on `blocks` K-blocks, one per thread:
// block i is a[i*kb .. i*kb+kb), b likewise, c[i], with kb =
// numerics::mma_k_block(format); d[i] gets the prediction. Operands are bit
// patterns (fp16/bf16 in the low 16 bits, TF32 as an fp32 pattern).
inline constexpr auto block_sizes = [](MmaFormat format, int blocks) -> std::array<Size, 4> {
  const std::size_t kb = static_cast<std::size_t>(cudalab::numerics::mma_k_block(format));
  const std::size_t count = elements(blocks, "blocks");
  return {{{"a", count * kb}, {"b", count * kb}, {"c", count}, {"d", count}}};
};
using OnBlocks = Entry<void(MmaFormat format, In<std::uint32_t> a, In<std::uint32_t> b, In<float> c,
                            Out<float> d, int blocks)>;
inline constexpr OnBlocks predict_mma{"predict_mma", block_sizes};
// The same blocks through the tensor-core instruction itself (harness code,
// mma_instruction.cuh): mma.sync on the GPU, the emulator's model of it on
// the emulator. The same signature, so one test body runs either.
inline constexpr OnBlocks mma_instruction{"mma_instruction", block_sizes};

// Exercise 5: the student's tensor-core GEMM, C (m x n, fp32) = A (m x k) *
// B (k x n). `c` goes to the device as it is (fill it with NaN first).
inline constexpr auto gemm_sizes = [](int m, int n, int k) -> std::array<Size, 3> {
  const std::size_t rows = elements(m, "m"), columns = elements(n, "n"), depth = elements(k, "k");
  return {{{"a", rows * depth}, {"b", depth * columns}, {"c", rows * columns}}};
};
inline constexpr Entry<void(In<std::uint16_t> a, In<std::uint16_t> b, Out<float> c, int m, int n,
                            int k)>
    tc_gemm_fp16{"tc_gemm_fp16", gemm_sizes};
inline constexpr Entry<void(In<float> a, In<float> b, Out<float> c, int m, int n, int k)>
    tc_gemm_tf32{"tc_gemm_tf32", gemm_sizes};
// Exercise 7: the student's Hopper GEMM, C (m x n, fp32) = A (m x k) * B^T
// with B stored n x k (bf16 patterns), on `blocks` persistent blocks (0:
// as many as fit at once). Runs on an sm_90 GPU or the emulator.
inline constexpr Entry<void(In<std::uint16_t> a, In<std::uint16_t> b, Out<float> c, int m, int n,
                            int k, int blocks)>
    hopper_gemm_bf16{"hopper_gemm_bf16",
                     [](int m, int n, int k, int) { return gemm_sizes(m, n, k); }};

// Exercise 6: the student's operand preparation of n values, in place on
// `x` (on the device), and (host code) their mean signed relative error of
// C against the exact product.
inline constexpr Entry<void(Out<float> x, int n, OperandRounding rounding)> round_operands{
    "round_operands", [](int n, OperandRounding) -> std::array<Size, 1> {
      return {{{"x", elements(n, "n")}}};
    }};
inline constexpr Entry<double(const std::vector<float>& c, const std::vector<double>& exact)>
    mean_signed_error{"mean_signed_error"};
}  // namespace entry

// The entry points, and exercise 2's experiment, which is no entry point: the
// GEMM runs on the backend's cudalab::blas handle (state a bound function,
// a plain function pointer, cannot hold), and the mode picks its element
// types, the output's included (an fp16 C in fp16-accumulate mode).
class Backend : public cudalab::harness::EntryBackend {
 public:
  // Exercise 2: C (m x n) = A (m x k) * B (k x n) through cudalab::blas in
  // `mode`. A and B are rounded to the mode's input type (nearest even) on
  // the host first, as a.half() does; c holds C's values as fp32 (an fp16 C
  // widened exactly).
  virtual Observation gemm_in_mode(GemmMode mode, int m, int n, int k, const std::vector<float>& a,
                                   const std::vector<float>& b, std::vector<float>& c,
                                   const RunOptions& options = {}) = 0;
};

std::unique_ptr<Backend> make_emulator_backend();
std::unique_ptr<Backend> make_gpu_backend(std::string* why_not = nullptr);
// The same over solutions/: each exercise is graded with the reference's
// other parts (OnBackend::reference()), e.g. exercise 6's rounding feeds the
// reference's tensor-core GEMM.
std::unique_ptr<Backend> make_reference_emulator_backend();
std::unique_ptr<Backend> make_reference_gpu_backend(std::string* why_not = nullptr);

}  // namespace lab02::harness
