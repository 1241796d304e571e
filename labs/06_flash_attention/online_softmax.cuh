// Lab 06, exercise 2: the softmax of a row in one pass over its blocks.
//
// softmax(x)_j = exp(x_j - m) / l with m = max x and l = sum_k exp(x_k - m)
// needs m before the first exponential: two passes over the row. The
// online softmax (Milakov and Gimelshein, 2018) keeps, for the part of the
// row seen so far, its maximum m and l = sum exp(x_k - m). When a block
// brings a larger maximum m', everything summed so far was scaled by
// exp(-m) and must now be scaled by exp(-m'): multiply l by exp(m - m').
// Exercise 3 multiplies the unscaled output row by the same factor.
//
// -infinity is a real input (a masked score). A row whose values so far
// are all -infinity has m = -infinity, and exp(x - m) = exp(-inf + inf) is
// NaN; taken as exp(x - 0) instead, every term is exp(-inf) = 0, which is
// right. A row of only -infinity ends with l = 0, and 0 / 0 is NaN: what
// PyTorch's softmax gives for it.
#pragma once

#include <cmath>
#include <stdexcept>
#include <string>

#include "cudalab/check.hpp"
#include "cudalab/kernel.hpp"

namespace lab06 {
inline namespace CUDALAB_BACKEND {

// The statistics of the part of a row seen so far.
struct SoftmaxState {
  float max = -INFINITY;  // m
  float sum = 0.0f;       // l = sum of exp(x - m)
};

// exp(x - max), where a max of -infinity (nothing but -infinity seen) counts as 0.
__host__ __device__ inline float exp_below([[maybe_unused]] float x, [[maybe_unused]] float max) {
  // TODO(ex2) begin, about 1 line: exp(x - max), with max = -infinity taken as 0.
  return 0.0f;
  // TODO(ex2) end
}

// Takes in a block whose largest value is block_max: state.max becomes the
// maximum of both, state.sum is rescaled to it. Returns the factor
// exp(m_old - m_new) it was rescaled by (exercise 3 rescales its output row
// by it too). Adding the block's own terms is the caller's job.
__host__ __device__ inline float fold_max([[maybe_unused]] SoftmaxState& state,
                                          [[maybe_unused]] float block_max) {
  // TODO(ex2) begin, about 5 lines: the new maximum, the factor (with exp_below), rescale the sum.
  return 1.0f;
  // TODO(ex2) end
}

// One thread per row: the row's statistics in one pass over blocks of
// `block` values, then the row written once.
__global__ void online_softmax_kernel(const float* x, float* out, int rows, int columns,
                                      int block) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const float* in = x + static_cast<std::size_t>(row) * columns;
  SoftmaxState state;
  for (int first = 0; first < columns; first += block) {
    // TODO(ex2) begin, about 6 lines: the block [first, min(first + block, columns)): its maximum,
    // fold_max it in, add the block's terms.
    // TODO(ex2) end
  }
  float* out_row = out + static_cast<std::size_t>(row) * columns;
  for (int j = 0; j < columns; ++j) out_row[j] = exp_below(in[j], state.max) / state.sum;
}

inline void online_softmax(const float* x, float* out, int rows, int columns, int block) {
  if (rows < 0 || columns < 0 || block < 1) {
    throw std::invalid_argument("online_softmax: " + std::to_string(rows) + " x " +
                                std::to_string(columns) + " in blocks of " + std::to_string(block) +
                                ": rows and columns must be >= 0 and the block >= 1");
  }
  if (rows == 0 || columns == 0) return;
  constexpr int kThreads = 128;
  online_softmax_kernel<<<(rows + kThreads - 1) / kThreads, kThreads>>>(x, out, rows, columns,
                                                                        block);
  CUDA_CHECK_LAUNCH();
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab06
