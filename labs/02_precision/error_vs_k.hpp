// Lab 02, exercise 3: how far each mode lands from the exact product as K grows.
//
// To see what a mode costs in accuracy you need the exact answer and one
// number for "how far": here the product of the same fp32 inputs in double
// precision (its own error, about K * 2^-53, is far below every mode's), and
// the normwise relative error ||C - exact||_F / ||exact||_F, the figure
// papers and the lecture quote ("2.1e-3 in TF32 vs 1.5e-5 in fp32"). The
// test then runs every mode for K = 256 ... 65536 and prints the table: an
// fp16 accumulator's error grows with K (every partial sum is rounded to 11
// bits), while the fp32-accumulating modes stay at the level their inputs'
// rounding sets.
//
// The exercise is the TODO regions of gemm_fp64 and normwise_relative_error.
#pragma once

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <vector>

namespace lab02 {
inline namespace CUDALAB_BACKEND {

// Row-major A (m x k) * B (k x n), every product and sum in double precision.
inline std::vector<double> gemm_fp64([[maybe_unused]] const std::vector<float>& a,
                                     [[maybe_unused]] const std::vector<float>& b,
                                     [[maybe_unused]] int m, [[maybe_unused]] int n,
                                     [[maybe_unused]] int k) {
  // TODO(ex3) begin, about 10 lines: C[i][j] = sum over p of A[i][p] * B[p][j],
  // with A[i][p] at a[i * k + p]; convert to double before multiplying.
  throw std::logic_error("exercise 3: gemm_fp64 is not written yet");
  // TODO(ex3) end
}

// ||c - exact||_F / ||exact||_F. A NaN anywhere in c makes it NaN: an error
// figure must never hide a broken result.
inline double normwise_relative_error([[maybe_unused]] const std::vector<float>& c,
                                      [[maybe_unused]] const std::vector<double>& exact) {
  // TODO(ex3) begin, about 7 lines: both sums of squares in double, one sqrt.
  throw std::logic_error("exercise 3: normwise_relative_error is not written yet");
  // TODO(ex3) end
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab02
