// Lab 06, exercise 1: attention as the lecture first writes it, three
// kernels with the n x n scores in global memory between them:
//
//   S = scale * Q K^T      scores_kernel        writes n^2 floats per head
//   P = softmax_rows(S)    softmax_rows_kernel  reads and rewrites them (in place)
//   O = P V                pv_kernel            reads them once more
//
// Every score crosses global memory four times, and at n = 4096 a head's S
// is 64 MiB, which does not stay in the H200's 50 MiB L2. This is the
// baseline that fusion (exercise 3) removes: O and L are all it writes.
#pragma once

#include <cmath>
#include <cstddef>

#include "attention_shape.cuh"
#include "causal_mask.cuh"
#include "cudalab/check.hpp"
#include "cudalab/kernel.hpp"
#include "cudalab/warp_reduce.hpp"

namespace lab06 {
inline namespace CUDALAB_BACKEND {

// One thread per score: (query, key) of head blockIdx.z. Masked scores
// (exercise 4's `masked`) are -infinity.
__global__ void scores_kernel([[maybe_unused]] const float* q, [[maybe_unused]] const float* k,
                              [[maybe_unused]] float* scores, AttentionShape shape) {
  const int key = blockIdx.x * blockDim.x + threadIdx.x;
  const int query = blockIdx.y * blockDim.y + threadIdx.y;
  if (query >= shape.n || key >= shape.n) return;
  // TODO(ex1) begin, about 8 lines: the dot product of the query's row of q with the key's row of k
  // (d values each), times scale; -infinity where masked; into scores[head][query][key], with head
  // = blockIdx.z (64-bit offsets).
  // TODO(ex1) end
}

// One warp per row of all heads' scores (rows = heads * n), in place. A
// row of only -infinity becomes NaN, as in PyTorch.
__global__ void softmax_rows_kernel([[maybe_unused]] float* scores, std::size_t rows,
                                    [[maybe_unused]] int n) {
  const std::size_t row = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  [[maybe_unused]] const int lane = threadIdx.x % 32;
  if (row >= rows) return;  // the whole warp leaves: the shuffles below need all 32 lanes
  // TODO(ex1) begin, about 9 lines: the row's maximum (each lane a strided part, then
  // cudalab::warp_max), the sum of exp(value - max) (cudalab::warp_sum), then each value rewritten
  // as exp(value - max) / sum.
  // TODO(ex1) end
}

// One thread per output value: (query, column) of head blockIdx.z.
__global__ void pv_kernel([[maybe_unused]] const float* probabilities,
                          [[maybe_unused]] const float* v, [[maybe_unused]] float* o,
                          AttentionShape shape) {
  const int column = blockIdx.x * blockDim.x + threadIdx.x;
  const int query = blockIdx.y * blockDim.y + threadIdx.y;
  if (query >= shape.n || column >= shape.d) return;
  // TODO(ex1) begin, about 6 lines: the query's row of probabilities times the column of v (n
  // terms), into o[head][query][column], head = blockIdx.z.
  // TODO(ex1) end
}

// o = softmax(scale * q k^T) v for every head, through `scores` (heads x n
// x n floats of scratch).
inline void naive_attention(const float* q, const float* k, const float* v, float* scores, float* o,
                            const AttentionShape& shape) {
  check_shape(shape, "naive_attention");
  const auto heads = static_cast<unsigned>(shape.heads);
  const auto n = static_cast<unsigned>(shape.n);
  // Scores: lanes along keys, so that a warp writes 32 neighbouring scores.
  const dim3 score_block(32, 8);
  scores_kernel<<<dim3((n + 31) / 32, (n + 7) / 8, heads), score_block>>>(q, k, scores, shape);
  CUDA_CHECK_LAUNCH();
  const std::size_t rows = static_cast<std::size_t>(heads) * n;
  constexpr unsigned kRowsPerBlock = 8;
  softmax_rows_kernel<<<static_cast<unsigned>((rows + kRowsPerBlock - 1) / kRowsPerBlock),
                        32 * kRowsPerBlock>>>(scores, rows, shape.n);
  CUDA_CHECK_LAUNCH();
  // Output: lanes along columns, so that a warp reads a row of v and writes a row of o.
  const auto d = static_cast<unsigned>(shape.d);
  const dim3 pv_block(32, 8);
  pv_kernel<<<dim3((d + 31) / 32, (n + 7) / 8, heads), pv_block>>>(scores, v, o, shape);
  CUDA_CHECK_LAUNCH();
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab06
