// Lab 06, exercise 3: the fused forward, in FA2's order (Dao, "FlashAttention-2",
// 2023, Algorithm 1): one block per block of Br queries, an inner walk over
// tiles of Bc keys. The block's queries stay in shared memory for the whole
// walk; each tile of K and V is loaded once per block; the scores of a tile
// live in registers and never reach global memory. Per query row the block
// keeps the online softmax's m and l (exercise 2) and the row of the output
// *unscaled*, O~ = sum_j exp(s_j - m) v_j; it divides by l once, at the
// end, and writes L = m + log(l) for the backward pass. Global memory sees
// q, k, v read and o, L written: n*d + n values per head written, no n x n
// buffer anywhere.
//
// The work of a block (Br = 64 queries, Bc = 32 keys, 8 warps of 8 rows):
//   S tile      lane j of warp w: s[r] = q_(8w+r) . k_j for its 8 rows r
//               (k_j read once from shared memory, used 8 times)
//   softmax     per row: cudalab::warp_max / warp_sum over the 32 lanes,
//               i.e. over the tile's 32 keys; rescale O~ by exp(m_old - m_new)
//   P V tile    lane c: O~_r[c + 32t] += sum_j p_rj v_j[c + 32t], p_rj
//               taken from lane j with __shfl_sync
// A warp is "one key per lane" for S and "one column per lane" for O.
// k_tile's rows are padded by one float: lane j reads row j, and with rows
// d + 1 floats apart the 32 lanes hit 32 different banks.
//
// Shared memory, in floats: Q (Br x d) + K (Bc x (d + 1)) + V (Bc x d); for
// d = 128 that is 64 KiB, more than the 48 KiB a launch gets without asking,
// so it is dynamic shared memory and flash_forward raises the kernel's limit.
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

inline constexpr int kFlashWarps = 8;
inline constexpr int kFlashRowsPerWarp = 8;
inline constexpr int kFlashQueryRows = kFlashWarps * kFlashRowsPerWarp;  // Br
inline constexpr int kFlashKeyRows = 32;                                 // Bc: a key per lane

template <int D>
constexpr std::size_t flash_shared_bytes() {
  return sizeof(float) * (kFlashQueryRows * D + kFlashKeyRows * (D + 1) + kFlashKeyRows * D);
}

template <int D>
__global__ void __launch_bounds__(32 * kFlashWarps)
    flash_forward_kernel(const float* q, [[maybe_unused]] const float* k,
                         [[maybe_unused]] const float* v, [[maybe_unused]] float* o,
                         [[maybe_unused]] float* lse, AttentionShape shape) {
  static_assert(D % 32 == 0 && D <= 128, "a lane holds D / 32 columns of an output row");
  constexpr int kPerLane = D / 32;
  constexpr int R = kFlashRowsPerWarp;
  extern __shared__ float shared[];
  auto q_tile = reinterpret_cast<float(*)[D]>(shared);  // (Br, D)
  [[maybe_unused]] auto k_tile =
      reinterpret_cast<float(*)[D + 1]>(shared + kFlashQueryRows * D);  // (Bc, D+1)
  [[maybe_unused]] auto v_tile = reinterpret_cast<float(*)[D]>(
      shared + (kFlashQueryRows + kFlashKeyRows) * D + kFlashKeyRows);  // (Bc, D)

  const int n = shape.n;
  const std::size_t head_start = static_cast<std::size_t>(blockIdx.y) * n * D;
  const int first_query = blockIdx.x * kFlashQueryRows;
  const int first_row = threadIdx.x / 32 * R;  // the warp's rows of the block
  [[maybe_unused]] const int lane = threadIdx.x % 32;

  // Q's block, once: rows past n are zeros (their results are never written).
  for (int e = threadIdx.x; e < kFlashQueryRows * D; e += blockDim.x) {
    const int row = e / D, column = e % D;
    const int query = first_query + row;
    q_tile[row][column] =
        query < n ? q[head_start + static_cast<std::size_t>(query) * D + column] : 0.0f;
  }

  [[maybe_unused]] SoftmaxState state[R];
  [[maybe_unused]] float out[R][kPerLane] = {};  // O~, unscaled: the lane's columns lane + 32t

  const int end = keys_end(first_query, kFlashQueryRows, n, shape.causal);
  for (int first_key = 0; first_key < end; first_key += kFlashKeyRows) {
    __syncthreads();  // every warp is done with the previous tile
    // TODO(ex3) begin, about 8 lines: load the keys [first_key, first_key + Bc) of k into k_tile
    // and of v into v_tile, all threads together, neighbouring threads on neighbouring columns
    // (as Q's block above); zeros for keys at or past `end`, which must not be read.
    // TODO(ex3) end
    __syncthreads();  // the tile is complete

    // TODO(ex3) begin, about 24 lines: S: the lane's score of key first_key + lane for each of
    // the warp's R rows (read k_tile[lane][c] once per c); per row: scale, -infinity where
    // masked, fold the tile's maximum (cudalab::warp_max) into state[r], rescale out[r] by the
    // factor, p = exp_below(score, new max), add the tile's sum of p (cudalab::warp_sum); then
    // P V: out[r][t] += p_j * v_tile[j][lane + 32t] for every key j (p_j from lane j: __shfl_sync).
    // TODO(ex3) end
  }

  for (int r = 0; r < R; ++r) {
    const int query = first_query + first_row + r;
    if (query >= n) break;
    // TODO(ex3) begin, about 5 lines: the lane's columns of o = out / l; lane 0 writes
    // L = m + log(l).
    // TODO(ex3) end
  }
}

template <int D>
void launch_flash_forward(const float* q, const float* k, const float* v, float* o, float* lse,
                          const AttentionShape& shape) {
  constexpr std::size_t bytes = flash_shared_bytes<D>();
  CUDA_CHECK(cudaFuncSetAttribute(flash_forward_kernel<D>,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(bytes)));
  const dim3 grid((shape.n + kFlashQueryRows - 1) / kFlashQueryRows, shape.heads);
  flash_forward_kernel<D><<<grid, 32 * kFlashWarps, bytes>>>(q, k, v, o, lse, shape);
  CUDA_CHECK_LAUNCH();
}

// o (heads x n x d) and the log-sum-exp lse (heads x n) of every head.
inline void flash_forward(const float* q, const float* k, const float* v, float* o, float* lse,
                          const AttentionShape& shape) {
  check_shape(shape, "flash_forward");
  switch (shape.d) {
    case 32:
      launch_flash_forward<32>(q, k, v, o, lse, shape);
      break;
    case 64:
      launch_flash_forward<64>(q, k, v, o, lse, shape);
      break;
    default:
      launch_flash_forward<128>(q, k, v, o, lse, shape);
      break;
  }
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab06
