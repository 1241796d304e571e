// Lab 06, exercise 3: the fused forward, in FA2's order (Dao, "FlashAttention-2",
// Algorithm 1): one block per block of Br queries, an inner walk over tiles
// of Bc keys. The block's queries stay in shared memory for the whole walk;
// each tile of K and V is loaded once per block; the scores of a tile live
// in registers, one per lane, and never reach global memory. Per query row
// the block keeps the online softmax's m and l (exercise 2) and the row of
// the output *unscaled*, O~ = sum_j exp(s_j - m) v_j; it divides by l once,
// at the end, and writes L = m + log(l) for the backward pass. Global
// memory sees q, k, v read and o, L written: n*d + n values per head, no
// n x n buffer anywhere.
//
// The work of a block (Br = 16 queries, Bc = 32 keys, 4 warps):
//   warp w        queries 4w .. 4w+3 of the block, one at a time
//   scores        lane j: s = scale * q_i . k_j for key j of the tile
//   softmax       cudalab::warp_max / warp_sum over the 32 lanes (the tile's keys)
//   P V           lane c: o_i[c + 32t] += sum_j p_j v_j[c + 32t], p_j taken
//                 from lane j with __shfl_sync
// So a warp is "one key per lane" for S and "one column per lane" for O.
// k_tile's rows are padded by one float: lane j reads row j, and with rows
// d + 1 floats apart the 32 lanes hit 32 different banks.
//
// Precondition: d is 32, 64 or 128 (check_shape); a lane holds d / 32
// values of each output row.
#pragma once

#include <cmath>
#include <cstddef>

#include "attention_shape.cuh"
#include "causal_mask.cuh"
#include "cudalab/check.hpp"
#include "cudalab/kernel.hpp"
#include "cudalab/warp_reduce.hpp"
#include "online_softmax.cuh"

namespace lab06 {
inline namespace CUDALAB_BACKEND {

inline constexpr int kFlashWarps = 4;
inline constexpr int kFlashRowsPerWarp = 4;
inline constexpr int kFlashQueryRows = kFlashWarps * kFlashRowsPerWarp;  // Br
inline constexpr int kFlashKeyRows = 32;                                 // Bc: a key per lane

template <int D>
__global__ void __launch_bounds__(32 * kFlashWarps)
    flash_forward_kernel(const float* q, [[maybe_unused]] const float* k,
                         [[maybe_unused]] const float* v, [[maybe_unused]] float* o,
                         [[maybe_unused]] float* lse, AttentionShape shape) {
  static_assert(D % 32 == 0 && D <= 128, "a lane holds D / 32 columns of an output row");
  constexpr int kPerLane = D / 32;
  __shared__ float q_tile[kFlashQueryRows][D];    // (Br, D)
  __shared__ float k_tile[kFlashKeyRows][D + 1];  // (Bc, D), padded
  __shared__ float v_tile[kFlashKeyRows][D];      // (Bc, D)

  const int n = shape.n;
  const std::size_t head_start = static_cast<std::size_t>(blockIdx.y) * n * D;
  const int first_query = blockIdx.x * kFlashQueryRows;
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;

  // Q's block, once: rows past n are zeros (their results are never written).
  for (int e = threadIdx.x; e < kFlashQueryRows * D; e += blockDim.x) {
    const int row = e / D, column = e % D;
    const int query = first_query + row;
    q_tile[row][column] =
        query < n ? q[head_start + static_cast<std::size_t>(query) * D + column] : 0.0f;
  }

  SoftmaxState state[kFlashRowsPerWarp];
  float out[kFlashRowsPerWarp][kPerLane] = {};  // O~, unscaled: lane's columns c = lane + 32t

  const int end = keys_end(first_query, kFlashQueryRows, n, shape.causal);
  for (int first_key = 0; first_key < end; first_key += kFlashKeyRows) {
    __syncthreads();  // every warp is done with the previous tile
    // TODO(ex3) begin, about 8 lines: load this tile's rows of k into k_tile and of v into v_tile,
    // all threads together, neighbouring threads on neighbouring columns (as Q's block above);
    // zeros for keys at or past n, which must not be read.
    // TODO(ex3) end
    __syncthreads();  // the tile is complete

    for (int i = 0; i < kFlashRowsPerWarp; ++i) {
      // TODO(ex3) begin, about 16 lines: the warp's i-th query (row warp * kFlashRowsPerWarp + i of
      // the block); the lane's score (key first_key + lane; -infinity where masked); fold the
      // tile's maximum (cudalab::warp_max) into state[i]; rescale out[i] by the factor; p =
      // exp_below(score, new max); add the tile's sum of p (cudalab::warp_sum); out[i][t] += p_j *
      // v_tile[j][lane + 32t] for every key j of the tile (p_j from lane j: __shfl_sync).
      // TODO(ex3) end
    }
  }

  for (int i = 0; i < kFlashRowsPerWarp; ++i) {
    const int query = first_query + warp * kFlashRowsPerWarp + i;
    if (query >= n) break;
    // TODO(ex3) begin, about 5 lines: the lane's columns of o = out / l; lane 0 writes L = m +
    // log(l).
    // TODO(ex3) end
  }
}

// o (heads x n x d) and the log-sum-exp lse (heads x n) of every head.
inline void flash_forward(const float* q, const float* k, const float* v, float* o, float* lse,
                          const AttentionShape& shape) {
  check_shape(shape, "flash_forward");
  const dim3 grid((shape.n + kFlashQueryRows - 1) / kFlashQueryRows, shape.heads);
  const dim3 block(32 * kFlashWarps);
  switch (shape.d) {
    case 32:
      flash_forward_kernel<32><<<grid, block>>>(q, k, v, o, lse, shape);
      break;
    case 64:
      flash_forward_kernel<64><<<grid, block>>>(q, k, v, o, lse, shape);
      break;
    default:
      flash_forward_kernel<128><<<grid, block>>>(q, k, v, o, lse, shape);
      break;
  }
  CUDA_CHECK_LAUNCH();
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab06
