// Lab 06, exercise 6 (stretch): the backward pass, in FA2's order (Dao,
// "FlashAttention-2", 2023, Algorithm 2). Given dO, the gradient of the loss
// with respect to o, it returns dQ, dK and dV, and never stores the n x n
// matrices P or dP: the forward kept L = m + log(l) per row, and
// exp(s - L) is P again, recomputed one tile at a time.
//
// For one head, with S = scale Q K^T, P = softmax_rows(S) (masked entries 0)
// and "o" the element-wise product:
//   dV = P^T dO          dP = dO V^T          dS = P o (dP - D)
//   dQ = scale dS K      dK = scale dS^T Q
// The softmax's backward needs, per row, D_i = sum_j P_ij dP_ij: a sum over
// all keys, which no tile of keys sees whole. Since dP_ij = dO_i . v_j and
// O_i = sum_j P_ij v_j, it is also dO_i . O_i, a sum over d columns that
// delta_kernel computes from dO and O before the main kernel runs.
//
// The main kernel has one block per (tile of Bc = 32 keys, head), the
// forward's loops swapped: the block keeps its K_j and V_j in shared memory
// and its dK_j and dV_j in registers, and walks over the blocks of Br = 64
// queries (under the causal mask, from the first block that reaches its
// first key: the queries before it see none of the tile's keys). Per block
// Q_i, with Q_i, dO_i, L_i and D_i in shared memory:
//   S, P    warp w, lane j: s[r] = q_(8w+r) . k_j for its 8 rows r (as the
//           forward), p = exp(scale s - L)                      -> p_tile
//   dV      warp w owns keys 4w .. 4w+3 of the tile, lane c the columns
//           c + 32t: dV_j[key] += sum over the Br rows r of p_tile[r][key] dO_r
//   dP, dS  warp w, lane j: dp[r] = dO_(8w+r) . v_j, ds = p (dp - D)  -> ds_tile
//   dK      as dV: dK_j[key] += sum_r ds_tile[r][key] q_r (scale applied at the end)
//   dQ      warp w, lane c: dQ_(8w+r)[c + 32t] += scale sum_j ds_tile[8w+r][j] k_j[c + 32t]
// A warp is "one key per lane" for S and dP (as in the forward), "one column
// per lane" for dV, dK and dQ; p_tile and ds_tile pass P and dS from the
// first layout to the second. dK and dV leave the chip once, at the end.
//
// Why dQ needs atomics: dQ_i = scale sum_j dS_ij K_j sums over every tile of
// keys, and each tile is a different block. Every block that reaches the
// queries of Q_i adds its part into the same rows of dQ, in no fixed order,
// so the adds are atomicAdd, and the launcher zeroes dQ first. (dK_j and
// dV_j sum over queries, which one block walks alone: no atomics there. The
// other way out is a second kernel with the loops the other way round, a
// block per Q_i, which recomputes P once more.)
//
// Shared memory, in floats: K, V (Bc x (d + 1)) + Q, dO (Br x d) + P, dS
// (Br x Bc) + L, D (Br). K and V are read one key per lane (lane j, row j),
// so their rows are padded by one float, as in the forward. 112.8 KiB at
// d = 128 (64.8 at 64, 40.8 at 32): flash_backward raises the kernel's limit.
//
// Precondition: d is 32, 64 or 128 (check_shape); a lane holds d / 32
// values of each row it accumulates.
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

inline constexpr int kBwdWarps = 8;
inline constexpr int kBwdRowsPerWarp = 8;
inline constexpr int kBwdQueryRows = kBwdWarps * kBwdRowsPerWarp;  // Br
inline constexpr int kBwdKeyRows = 32;                             // Bc: a key per lane
inline constexpr int kBwdKeysPerWarp = kBwdKeyRows / kBwdWarps;    // the warp's keys of dK, dV
inline constexpr int kDeltaRowsPerBlock = 8;                       // delta_kernel: a warp per row

// Where each tile starts in shared memory, in floats.
template <int D>
struct BackwardTiles {
  static constexpr int kK = 0;                                  // K_j (Bc, D+1)
  static constexpr int kV = kK + kBwdKeyRows * (D + 1);         // V_j (Bc, D+1)
  static constexpr int kQ = kV + kBwdKeyRows * (D + 1);         // Q_i (Br, D)
  static constexpr int kDO = kQ + kBwdQueryRows * D;            // dO_i (Br, D)
  static constexpr int kP = kDO + kBwdQueryRows * D;            // P (Br, Bc)
  static constexpr int kDS = kP + kBwdQueryRows * kBwdKeyRows;  // dS (Br, Bc)
  static constexpr int kL = kDS + kBwdQueryRows * kBwdKeyRows;  // L_i (Br)
  static constexpr int kDelta = kL + kBwdQueryRows;             // D_i (Br)
  static constexpr int kFloats = kDelta + kBwdQueryRows;
};

template <int D>
constexpr std::size_t flash_backward_shared_bytes() {
  return sizeof(float) * BackwardTiles<D>::kFloats;
}

// D_i = rowsum(dO_i o O_i) for every row of every head (rows = heads * n),
// one warp per row.
__global__ void delta_kernel([[maybe_unused]] const float* d_o, [[maybe_unused]] const float* o,
                             [[maybe_unused]] float* delta, std::size_t rows,
                             [[maybe_unused]] int d) {
  const std::size_t row = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  [[maybe_unused]] const int lane = threadIdx.x % 32;
  if (row >= rows) return;  // the whole warp leaves: warp_sum needs all 32 lanes
  // TODO(ex6) begin, about 6 lines: the lane's part of the row's dot product of dO and O (columns
  // lane, lane + 32, ...), summed over the warp (cudalab::warp_sum); lane 0 writes delta[row].
  // TODO(ex6) end
}

// The first query whose block reaches the tile of keys starting at
// first_key: under the causal mask, the queries before first_key see none
// of its keys, and a block of queries that ends before it is skipped.
__host__ __device__ inline int first_query_block(int first_key, bool causal) {
  return causal ? first_key / kBwdQueryRows * kBwdQueryRows : 0;
}

template <int D>
__global__ void __launch_bounds__(32 * kBwdWarps)
    flash_backward_kernel(const float* q, const float* k, const float* v, const float* d_o,
                          const float* lse, const float* delta, [[maybe_unused]] float* dq,
                          float* dk, float* dv, AttentionShape shape) {
  static_assert(D % 32 == 0 && D <= 128, "a lane holds D / 32 columns of a row");
  constexpr int kPerLane = D / 32;
  constexpr int R = kBwdRowsPerWarp;
  using Tiles = BackwardTiles<D>;
  extern __shared__ float shared[];
  auto k_tile = reinterpret_cast<float(*)[D + 1]>(shared + Tiles::kK);
  auto v_tile = reinterpret_cast<float(*)[D + 1]>(shared + Tiles::kV);
  auto q_tile = reinterpret_cast<float(*)[D]>(shared + Tiles::kQ);
  auto do_tile = reinterpret_cast<float(*)[D]>(shared + Tiles::kDO);
  [[maybe_unused]] auto p_tile = reinterpret_cast<float(*)[kBwdKeyRows]>(shared + Tiles::kP);
  [[maybe_unused]] auto ds_tile = reinterpret_cast<float(*)[kBwdKeyRows]>(shared + Tiles::kDS);
  float* const lse_tile = shared + Tiles::kL;
  float* const delta_tile = shared + Tiles::kDelta;

  const int n = shape.n;
  const std::size_t head_start = static_cast<std::size_t>(blockIdx.y) * n * D;
  const std::size_t head_rows = static_cast<std::size_t>(blockIdx.y) * n;  // of L and D
  const int first_key = blockIdx.x * kBwdKeyRows;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int first_row = warp * R;                     // the warp's rows of a block of queries
  const int first_warp_key = warp * kBwdKeysPerWarp;  // the warp's keys of the tile, for dK, dV

  // K_j and V_j, once: keys past n are zeros (their gradients are never written).
  for (int e = threadIdx.x; e < kBwdKeyRows * D; e += blockDim.x) {
    const int row = e / D, column = e % D;
    const int key = first_key + row;
    const std::size_t at = head_start + static_cast<std::size_t>(key) * D + column;
    k_tile[row][column] = key < n ? k[at] : 0.0f;
    v_tile[row][column] = key < n ? v[at] : 0.0f;
  }

  // dK_j (without the scale) and dV_j: [key][t] is key first_warp_key + key
  // of the tile, column lane + 32t.
  float dk_j[kBwdKeysPerWarp][kPerLane] = {};
  float dv_j[kBwdKeysPerWarp][kPerLane] = {};

  for (int first_query = first_query_block(first_key, shape.causal); first_query < n;
       first_query += kBwdQueryRows) {
    __syncthreads();  // every warp is done with the previous block's tiles (and K_j, V_j are in)
    // Q_i, dO_i, L_i and D_i: rows past n are zeros, and their P is set to 0 below.
    for (int e = threadIdx.x; e < kBwdQueryRows * D; e += blockDim.x) {
      const int row = e / D, column = e % D;
      const int query = first_query + row;
      const std::size_t at = head_start + static_cast<std::size_t>(query) * D + column;
      q_tile[row][column] = query < n ? q[at] : 0.0f;
      do_tile[row][column] = query < n ? d_o[at] : 0.0f;
    }
    if (threadIdx.x < kBwdQueryRows) {
      const int query = first_query + threadIdx.x;
      lse_tile[threadIdx.x] = query < n ? lse[head_rows + query] : 0.0f;
      delta_tile[threadIdx.x] = query < n ? delta[head_rows + query] : 0.0f;
    }
    __syncthreads();  // the block of queries is complete

    // S: the lane's key against the warp's R rows, as in the forward.
    float score[R] = {};
    for (int c = 0; c < D; ++c) {
      const float key_c = k_tile[lane][c];
      for (int r = 0; r < R; ++r) score[r] += q_tile[first_row + r][c] * key_c;
    }
    [[maybe_unused]] float p[R] = {};  // P of the warp's rows r and the lane's key
    // TODO(ex6) begin, about 6 lines: for each of the warp's rows r, p[r] = exp(scale * score[r] -
    // L) with L from lse_tile; exactly 0 where the key is masked or the query is at or past n (its
    // q row is zeros, and exp(0 - 0) is not 0); and into p_tile[row][lane] for the dV step.
    // TODO(ex6) end
    __syncthreads();  // p_tile is complete

    // TODO(ex6) begin, about 17 lines: dV: for every row of the block and each of the warp's keys,
    // p_tile[row][first_warp_key + key] times the lane's columns of do_tile[row], into dv_j[key].
    // dP: the lane's key against the warp's rows, dp[r] = do_tile[row] . v_tile[lane] (as S
    // above); then dS = p (dp - D), D from delta_tile, into ds_tile[row][lane].
    // TODO(ex6) end
    __syncthreads();  // ds_tile is complete

    // TODO(ex6) begin, about 24 lines: dK: as dV, with ds_tile and q_tile into dk_j. dQ: for the
    // warp's rows, the lane's columns of sum_j ds_tile[row][j] * k_tile[j], times scale, added to
    // dq with atomicAdd (other blocks add into the same rows); rows at or past n must not be
    // touched.
    // TODO(ex6) end
  }

  // dK_j and dV_j leave the chip once; keys past n are never written.
  for (int key = 0; key < kBwdKeysPerWarp; ++key) {
    const int key_row = first_key + first_warp_key + key;
    if (key_row >= n) break;
    const std::size_t at = head_start + static_cast<std::size_t>(key_row) * D;
    for (int t = 0; t < kPerLane; ++t) {
      dk[at + lane + 32 * t] = shape.scale * dk_j[key][t];
      dv[at + lane + 32 * t] = dv_j[key][t];
    }
  }
}

template <int D>
void launch_flash_backward(const float* q, const float* k, const float* v, const float* d_o,
                           const float* lse, const float* delta, float* dq, float* dk, float* dv,
                           const AttentionShape& shape) {
  constexpr std::size_t bytes = flash_backward_shared_bytes<D>();
  CUDA_CHECK(cudaFuncSetAttribute(flash_backward_kernel<D>,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(bytes)));
  const dim3 grid((shape.n + kBwdKeyRows - 1) / kBwdKeyRows, shape.heads);
  flash_backward_kernel<D>
      <<<grid, 32 * kBwdWarps, bytes>>>(q, k, v, d_o, lse, delta, dq, dk, dv, shape);
  CUDA_CHECK_LAUNCH();
}

// dq, dk and dv (heads x n x d each) of o = softmax(scale q k^T [masked]) v
// for the upstream gradient d_o, from the forward's o and log-sum-exp lse
// (heads x n), through `delta` (heads x n floats of scratch: D).
inline void flash_backward(const float* q, const float* k, const float* v, const float* o,
                           const float* d_o, const float* lse, float* delta, float* dq, float* dk,
                           float* dv, const AttentionShape& shape) {
  check_shape(shape, "flash_backward");
  const std::size_t rows = static_cast<std::size_t>(shape.heads) * shape.n;
  delta_kernel<<<static_cast<unsigned>((rows + kDeltaRowsPerBlock - 1) / kDeltaRowsPerBlock),
                 32 * kDeltaRowsPerBlock>>>(d_o, o, delta, rows, shape.d);
  CUDA_CHECK_LAUNCH();
  // The main kernel's blocks only add into dq.
  CUDA_CHECK(cudaMemsetAsync(dq, 0, sizeof(float) * rows * shape.d));
  switch (shape.d) {
    case 32:
      launch_flash_backward<32>(q, k, v, d_o, lse, delta, dq, dk, dv, shape);
      break;
    case 64:
      launch_flash_backward<64>(q, k, v, d_o, lse, delta, dq, dk, dv, shape);
      break;
    default:
      launch_flash_backward<128>(q, k, v, d_o, lse, delta, dq, dk, dv, shape);
      break;
  }
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab06
