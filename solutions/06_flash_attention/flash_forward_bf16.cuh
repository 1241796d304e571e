// Lab 06, exercise 5: the fused forward on the tensor cores, bf16 Q, K, V
// and O, fp32 scores and softmax statistics: FA2's kernel without Hopper's
// wgmma and TMA.
//
// Each warp owns 16 query rows and does both matrix products with
// mma.sync.m16n8k16 (bf16 in, fp32 accumulate; cudalab/mma.hpp):
//   S (16 x Bc)  = Q_w (16 x d) K_j^T     Q_w's fragments stay in registers
//                                          for the whole walk; K_j from shared
//                                          memory with ldmatrix
//   O (16 x d)  += P (16 x Bc) V_j        P is S's accumulator registers,
//                                          rounded to bf16 and repacked as A
//                                          fragments without leaving the
//                                          registers; V_j with ldmatrix.trans
// The accumulator layout of an m16n8 tile (lane = 4g + t holds rows g and
// g + 8, columns 2t and 2t + 1) is exactly what two neighbouring n-tiles
// of S need to be as one m16k16 A fragment of P: FA2's register trick.
// A row's Bc = 32 scores of a tile are spread over the 4 lanes of a quad (same
// g): its max and sum are a reduction over 8 values in a lane, then two
// __shfl_xor_sync (distances 1 and 2). The sum l is kept per lane (a
// partial row sum; the factor is the same for the quad) and reduced once
// at the end.
//
// Softmax in base 2: s' = s * scale * log2(e), p = exp2(s' - m'), which is
// exp(s * scale - m) with m = m' / log2(e); exp2f is one instruction
// (ex2.approx), expf two.
//
// Memory: Q's block (Br x d) and two stages of K and V tiles (Bc x d each)
// in shared memory, rows padded by 16 bytes so that the 8 rows an ldmatrix
// phase reads fall into 8 different groups of 4 banks. Tiles arrive by
// cp.async (16 bytes per copy, zero-filled past the last key): while the
// tensor cores work on tile j, tile j + 1 is on its way.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include <cuda_bf16.h>

#include "attention_shape.cuh"
#include "causal_mask.cuh"
#include "cudalab/async_copy.hpp"
#include "cudalab/check.hpp"
#include "cudalab/kernel.hpp"
#include "cudalab/ldmatrix.hpp"
#include "cudalab/mma.hpp"

namespace lab06 {
inline namespace CUDALAB_BACKEND {

inline constexpr int kTcWarps = 4;
inline constexpr int kTcQueryRows = 16 * kTcWarps;  // Br: 16 rows per warp
inline constexpr int kTcKeyRows = 32;               // Bc
inline constexpr float kLog2e = 1.4426950408889634f;

template <int D>
inline constexpr int kTcRowStride = D + 8;  // bf16 values per shared row (16 bytes of padding)

template <int D>
constexpr std::size_t tc_shared_bytes() {
  return sizeof(std::uint16_t) * kTcRowStride<D> * (kTcQueryRows + 4 * kTcKeyRows);
}

// Two floats as one register of two bf16 (round to nearest even), the
// lower column in the low half, as an mma fragment holds them.
__device__ inline std::uint32_t pack_bf16x2(float low, float high) {
  return static_cast<std::uint32_t>(__bfloat16_as_ushort(__float2bfloat16_rn(low))) |
         static_cast<std::uint32_t>(__bfloat16_as_ushort(__float2bfloat16_rn(high))) << 16;
}

// Rows [first, first + Rows) of a head's n x D bf16 matrix into shared rows
// of kTcRowStride<D>, 16 bytes per cp.async; rows at or past `end` become
// zeros without being read.
template <int D, int Rows>
__device__ inline void copy_rows_async(std::uint16_t* shared, const std::uint16_t* head, int first,
                                       int end) {
  constexpr int kChunksPerRow = D / 8;
  for (int chunk = threadIdx.x; chunk < Rows * kChunksPerRow; chunk += blockDim.x) {
    const int row = chunk / kChunksPerRow, column = chunk % kChunksPerRow * 8;
    const bool inside = first + row < end;
    const std::uint16_t* from =
        inside ? head + static_cast<std::size_t>(first + row) * D + column : head;
    cudalab::cp_async_16_zfill(shared + row * kTcRowStride<D> + column, from, inside ? 16 : 0);
  }
}

template <int D>
__global__ void __launch_bounds__(32 * kTcWarps)
    flash_forward_bf16_kernel(const std::uint16_t* q, const std::uint16_t* k,
                              const std::uint16_t* v, std::uint16_t* o, float* lse,
                              AttentionShape shape) {
  static_assert(D % 16 == 0 && D <= 128, "d in steps of 16 (the mma's k), at most 128");
  constexpr int kStride = kTcRowStride<D>;
  constexpr int kSteps = D / 16;             // k-steps of S = Q K^T
  constexpr int kKeyTiles = kTcKeyRows / 8;  // n-tiles of S
  constexpr int kOutTiles = D / 8;           // n-tiles of O
  extern __shared__ __align__(16) std::uint16_t shared_bf16[];
  std::uint16_t* const q_tile = shared_bf16;                             // (Br, D)
  std::uint16_t* const kv_tiles = shared_bf16 + kTcQueryRows * kStride;  // 2 stages of K, V

  const int n = shape.n;
  const std::size_t head_start = static_cast<std::size_t>(blockIdx.y) * n * D;
  const int first_query = blockIdx.x * kTcQueryRows;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane / 4, t = lane % 4;
  const int warp_row = warp * 16;  // the warp's first row in the block
  [[maybe_unused]] const float scale_log2 = shape.scale * kLog2e;
  const int end = keys_end(first_query, kTcQueryRows, n, shape.causal);
  const int tiles = (end + kTcKeyRows - 1) / kTcKeyRows;

  const auto k_stage = [&](int stage) { return kv_tiles + stage * 2 * kTcKeyRows * kStride; };
  const auto v_stage = [&](int stage) { return k_stage(stage) + kTcKeyRows * kStride; };

  copy_rows_async<D, kTcQueryRows>(q_tile, q + head_start, first_query, n);
  copy_rows_async<D, kTcKeyRows>(k_stage(0), k + head_start, 0, end);
  copy_rows_async<D, kTcKeyRows>(v_stage(0), v + head_start, 0, end);
  cudalab::cp_async_commit();

  std::uint32_t q_frag[kSteps][4];
  float out[kOutTiles][4] = {};               // O~ of rows g and g + 8, unscaled
  float row_max[2] = {-INFINITY, -INFINITY};  // m' (base 2) of rows g, g + 8
  float row_sum[2] = {0.0f, 0.0f};            // this lane's part of l

  for (int tile = 0; tile < tiles; ++tile) {
    const int first_key = tile * kTcKeyRows;
    const int stage = tile % 2;
    if (tile + 1 < tiles) {  // the next tile into the other stage, while this one is used
      copy_rows_async<D, kTcKeyRows>(k_stage(1 - stage), k + head_start, first_key + kTcKeyRows,
                                     end);
      copy_rows_async<D, kTcKeyRows>(v_stage(1 - stage), v + head_start, first_key + kTcKeyRows,
                                     end);
      cudalab::cp_async_commit();
      cudalab::cp_async_wait<1>();
    } else {
      cudalab::cp_async_wait<0>();
    }
    __syncthreads();  // this tile (and in the first round Q) is in shared memory for all
    if (tile == 0) {
      for (int s = 0; s < kSteps; ++s) {
        cudalab::ldmatrix_x4(q_frag[s],
                             q_tile + (warp_row + lane % 16) * kStride + 16 * s + 8 * (lane / 16));
      }
    }
    [[maybe_unused]] const std::uint16_t* k_tile = k_stage(stage);
    [[maybe_unused]] const std::uint16_t* v_tile = v_stage(stage);

    [[maybe_unused]] float score[kKeyTiles][4] =
        {};  // S, then P: this lane's part of the warp's 16 x Bc
    // TODO(ex5) begin, about 14 lines: S = Q_w K_j^T: for each pair of n-tiles (16 keys) and
    // k-step, one ldmatrix_x4 of k_tile gives both n-tiles' B fragments; mma_m16n8k16_bf16.
    for (int pair = 0; pair < kKeyTiles / 2; ++pair) {
      for (int s = 0; s < kSteps; ++s) {
        std::uint32_t b[4];
        const int key = 16 * pair + lane % 8 + 8 * (lane / 16);
        cudalab::ldmatrix_x4(b, k_tile + key * kStride + 16 * s + 8 * (lane / 8 % 2));
        cudalab::mma_m16n8k16_bf16(score[2 * pair], q_frag[s], b, score[2 * pair]);
        cudalab::mma_m16n8k16_bf16(score[2 * pair + 1], q_frag[s], b + 2, score[2 * pair + 1]);
      }
    }
    // TODO(ex5) end

    // TODO(ex5) begin, about 30 lines: per row (g, then g + 8): scale to base 2, -infinity where
    // masked (only tiles the diagonal or the sequence end crosses need it), the tile's max over
    // the quad, the factor exp2(m_old - m_new), p = exp2(s' - m_new), the lane's sum; rescale out.
    const bool edge = first_key + kTcKeyRows > n ||
                      (shape.causal && first_key + kTcKeyRows - 1 > first_query + warp_row);
    for (int half = 0; half < 2; ++half) {
      const int query = first_query + warp_row + g + 8 * half;
      float tile_max = -INFINITY;
      for (int j = 0; j < kKeyTiles; ++j) {
        for (int e = 0; e < 2; ++e) {
          float& s = score[j][2 * half + e];
          s = edge && masked(query, first_key + 8 * j + 2 * t + e, n, shape.causal)
                  ? -INFINITY
                  : s * scale_log2;
          tile_max = fmaxf(tile_max, s);
        }
      }
      tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
      tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 2));
      const float new_max = fmaxf(row_max[half], tile_max);
      const float base = new_max == -INFINITY ? 0.0f : new_max;  // exercise 2's exp_below
      const float factor = exp2f(row_max[half] - base);
      row_max[half] = new_max;
      float sum = 0.0f;
      for (int j = 0; j < kKeyTiles; ++j) {
        for (int e = 0; e < 2; ++e) {
          float& s = score[j][2 * half + e];
          s = exp2f(s - base);  // now p
          sum += s;
        }
      }
      row_sum[half] = row_sum[half] * factor + sum;
      for (int j = 0; j < kOutTiles; ++j) {
        out[j][2 * half] *= factor;
        out[j][2 * half + 1] *= factor;
      }
    }
    // TODO(ex5) end

    // TODO(ex5) begin, about 14 lines: O += P V_j: for each k-step of 16 keys, P's A fragment
    // from two neighbouring n-tiles of score (pack_bf16x2); for each pair of O's n-tiles, one
    // ldmatrix_x4_trans of v_tile gives both B fragments.
    for (int s = 0; s < kTcKeyRows / 16; ++s) {
      const std::uint32_t p[4] = {pack_bf16x2(score[2 * s][0], score[2 * s][1]),
                                  pack_bf16x2(score[2 * s][2], score[2 * s][3]),
                                  pack_bf16x2(score[2 * s + 1][0], score[2 * s + 1][1]),
                                  pack_bf16x2(score[2 * s + 1][2], score[2 * s + 1][3])};
      for (int pair = 0; pair < kOutTiles / 2; ++pair) {
        std::uint32_t b[4];
        const int key = 16 * s + lane % 8 + 8 * (lane / 8 % 2);
        cudalab::ldmatrix_x4_trans(b, v_tile + key * kStride + 16 * pair + 8 * (lane / 16));
        cudalab::mma_m16n8k16_bf16(out[2 * pair], p, b, out[2 * pair]);
        cudalab::mma_m16n8k16_bf16(out[2 * pair + 1], p, b + 2, out[2 * pair + 1]);
      }
    }
    // TODO(ex5) end
    __syncthreads();  // every warp is done with this stage before it is refilled
  }

  for (int half = 0; half < 2; ++half) {
    const int query = first_query + warp_row + g + 8 * half;
    float sum = row_sum[half];
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    sum += __shfl_xor_sync(0xffffffffu, sum, 2);
    if (query >= n) continue;
    std::uint16_t* o_row = o + head_start + static_cast<std::size_t>(query) * D;
    for (int j = 0; j < kOutTiles; ++j) {
      *reinterpret_cast<std::uint32_t*>(o_row + 8 * j + 2 * t) =
          pack_bf16x2(out[j][2 * half] / sum, out[j][2 * half + 1] / sum);
    }
    if (t == 0) {
      lse[static_cast<std::size_t>(blockIdx.y) * n + query] = row_max[half] / kLog2e + logf(sum);
    }
  }
}

template <int D>
void launch_flash_forward_bf16(const std::uint16_t* q, const std::uint16_t* k,
                               const std::uint16_t* v, std::uint16_t* o, float* lse,
                               const AttentionShape& shape) {
  constexpr std::size_t bytes = tc_shared_bytes<D>();
  CUDA_CHECK(cudaFuncSetAttribute(flash_forward_bf16_kernel<D>,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(bytes)));
  const dim3 grid((shape.n + kTcQueryRows - 1) / kTcQueryRows, shape.heads);
  flash_forward_bf16_kernel<D><<<grid, 32 * kTcWarps, bytes>>>(q, k, v, o, lse, shape);
  CUDA_CHECK_LAUNCH();
}

// o (heads x n x d, bf16) and the log-sum-exp lse (heads x n, fp32) of
// bf16 q, k, v. Rows of q, k, v, o must start 16-byte aligned (d * 2
// bytes is 64, 128 or 256; the base pointers are cudaMalloc's).
inline void flash_forward_bf16(const std::uint16_t* q, const std::uint16_t* k,
                               const std::uint16_t* v, std::uint16_t* o, float* lse,
                               const AttentionShape& shape) {
  check_shape(shape, "flash_forward_bf16");
  switch (shape.d) {
    case 32:
      launch_flash_forward_bf16<32>(q, k, v, o, lse, shape);
      break;
    case 64:
      launch_flash_forward_bf16<64>(q, k, v, o, lse, shape);
      break;
    default:
      launch_flash_forward_bf16<128>(q, k, v, o, lse, shape);
      break;
  }
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab06
