// Lab 02, exercise 6: round before you multiply.
//
// A TF32 mma.sync reads the upper 19 bits of each fp32 operand and ignores
// the low 13: fed raw fp32 values, it multiplies their truncations (rounded
// toward zero). Truncation always moves a value toward zero, so on positive
// data every product comes out a little small and the errors add up instead
// of cancelling: the GEMM is biased. Rounding the operands to TF32 first
// removes the bias. Two roundings meet in practice:
//   ties away     wmma::__float_to_tf32 (cvt.rna.tf32.f32), what the CUDA
//                 samples do after loading a fragment;
//   nearest even  what cuBLAS does in TF32 mode; only these operands make
//                 the tensor-core GEMM of exercise 5 give cuBLAS's bits on
//                 A * I (ties away differs on the ties, e.g. 0x3f801000).
// mean_signed_error measures the bias: the mean of (c - exact) / |exact|,
// negative when C is too small.
//
// The exercise is the TODO regions of labs/02_precision/ in this file, from
// each `begin` line to its `end` line; README.md says what they want.
#pragma once

#include <mma.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "cudalab/kernel.hpp"
#include "precision_types.hpp"

namespace lab02 {
inline namespace CUDALAB_BACKEND {

// x[i] rounded to TF32 (an fp32 value whose low 13 bits are 0) in place, as
// `rounding` says: raw leaves it as it is, ties_away is
// wmma::__float_to_tf32, nearest_even rounds to the nearest TF32 value and a
// tie to the one with an even last bit; every NaN becomes 0x7fffe000 (what
// cvt.rn.tf32.f32 returns), infinities stay.
// (The parameters are [[maybe_unused]] only so that the empty stub in labs/
// compiles without warnings.)
__global__ void round_operands_kernel([[maybe_unused]] float* x, [[maybe_unused]] int n,
                                      [[maybe_unused]] OperandRounding rounding) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || rounding == OperandRounding::raw) return;
  if (rounding == OperandRounding::ties_away) {
    x[i] = nvcuda::wmma::__float_to_tf32(x[i]);
    return;
  }
  const std::uint32_t bits = __float_as_uint(x[i]);
  if ((bits & 0x7fffffffu) > 0x7f800000u) {
    x[i] = __uint_as_float(0x7fffe000u);
    return;
  }
  // Add just under half a TF32 step, plus the kept last bit: a tie carries
  // only when that bit is odd. A carry out of the fraction moves the value
  // up a binade, or from the largest finite value to infinity, as it should.
  const std::uint32_t last_kept_bit = (bits >> 13) & 1u;
  x[i] = __uint_as_float((bits + 0xfffu + last_kept_bit) & ~0x1fffu);
}

inline void round_operands(float* x, int n, OperandRounding rounding) {
  if (n < 0) throw std::invalid_argument("round_operands: n must be >= 0");
  if (n > 0) round_operands_kernel<<<(n + 255) / 256, 256>>>(x, n, rounding);
}

// The mean of (c - exact) / |exact| over the elements whose exact value is
// not 0 (NaN if there is none).
inline double mean_signed_error([[maybe_unused]] const std::vector<float>& c,
                                [[maybe_unused]] const std::vector<double>& exact) {
  double sum = 0.0;
  std::size_t count = 0;
  for (std::size_t i = 0; i < c.size() && i < exact.size(); ++i) {
    if (exact[i] == 0.0) continue;
    sum += (static_cast<double>(c[i]) - exact[i]) / std::fabs(exact[i]);
    ++count;
  }
  return count == 0 ? std::numeric_limits<double>::quiet_NaN() : sum / static_cast<double>(count);
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab02
