// Lab 06, exercise 5: the fused forward on the tensor cores, bf16 Q, K, V
// and O, fp32 scores and softmax statistics: FA2's kernel without Hopper's
// wgmma and TMA.
//
// A block of 4 warps owns Br = 128 query rows; each warp owns 32 of them as
// two m16 row tiles, and does both matrix products with mma.sync.m16n8k16
// (bf16 in, fp32 accumulate; cudalab/mma.hpp):
//   S (32 x Bc) = Q_w (32 x d) K_j^T      Q_w's A fragments from shared memory
//                                          (ldmatrix) at every k-step; K_j's
//                                          B fragments by ldmatrix, each used
//                                          for both row tiles
//   O (32 x d) += P (32 x Bc) V_j         P is S's accumulator registers,
//                                          rounded to bf16 and repacked as A
//                                          fragments without leaving the
//                                          registers; V_j with ldmatrix.trans,
//                                          each fragment used for both row tiles
// Two row tiles per warp halve the shared-memory traffic per mma: a B
// fragment feeds two instructions instead of one (FA2's configuration for
// d = 128). Q is re-read from shared memory because its fragments for 32
// rows would not fit beside O's 128 accumulator registers and S's 64.
// The accumulator layout of an m16n8 tile (lane = 4g + t holds rows g and
// g + 8, columns 2t and 2t + 1) is exactly what two neighbouring n-tiles
// of S need to be as one m16k16 A fragment of P: FA2's register trick.
// A row's Bc = 64 scores of a tile are spread over the 4 lanes of a quad
// (same g): its max and sum are a reduction over 16 values in a lane, then
// two __shfl_xor_sync (distances 1 and 2). The sum l is kept per lane (a
// partial row sum; the factor is the same for the quad) and reduced once
// at the end.
//
// Softmax in base 2 with one FFMA and one MUFU.EX2 per score: with
// c = scale * log2(e) > 0, max(s * c) = c * max(s), so the tile's maximum is
// taken over the unscaled scores and p = exp2(s * c - m') (m' = c * m) is
// fmaf then cudalab::exp2_approx; exp(s * scale - m) = exp2(s * c - m').
// (A negative scale would need the minimum instead: the kernel refuses one.)
//
// Memory: Q's block (Br x d) and one tile each of K and V (Bc x d) in shared
// memory, rows padded by 16 bytes so that the 8 rows an ldmatrix phase reads
// fall into 8 different groups of 4 banks: 68 KiB at d = 128, so with 255
// registers per thread two blocks share an SM. Tiles arrive by cp.async (16
// bytes per copy, zero-filled past the last key). FA2's pipeline: V_j
// arrives while S = Q K_j^T is computed, K_{j+1} while the softmax and
// O += P V_j are.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <cuda_bf16.h>

#include "attention_shape.cuh"
#include "causal_mask.cuh"
#include "cudalab/async_copy.hpp"
#include "cudalab/check.hpp"
#include "cudalab/fast_math.hpp"
#include "cudalab/kernel.hpp"
#include "cudalab/ldmatrix.hpp"
#include "cudalab/mma.hpp"

namespace lab06 {
inline namespace CUDALAB_BACKEND {

inline constexpr int kTcWarps = 4;
inline constexpr int kTcRowTiles = 2;                             // m16 row tiles per warp
inline constexpr int kTcQueryRows = 16 * kTcRowTiles * kTcWarps;  // Br
inline constexpr int kTcKeyRows = 64;                             // Bc
inline constexpr float kLog2e = 1.4426950408889634f;

template <int D>
inline constexpr int kTcRowStride = D + 8;  // bf16 values per shared row (16 bytes of padding)

template <int D>
constexpr std::size_t tc_shared_bytes() {
  return sizeof(std::uint16_t) * kTcRowStride<D> * (kTcQueryRows + 2 * kTcKeyRows);
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

// The loops over fragments are unrolled by hand (#pragma unroll): every
// index into score and out must be a constant, or the arrays leave the
// registers for local memory.
template <int D>
__global__ void __launch_bounds__(32 * kTcWarps)
    flash_forward_bf16_kernel(const std::uint16_t* q, const std::uint16_t* k,
                              const std::uint16_t* v, std::uint16_t* o, float* lse,
                              AttentionShape shape) {
  static_assert(D % 16 == 0 && D <= 128, "d in steps of 16 (the mma's k), at most 128");
  constexpr int kStride = kTcRowStride<D>;
  [[maybe_unused]] constexpr int kSteps = D / 16;  // k-steps of S = Q K^T
  constexpr int kKeyTiles = kTcKeyRows / 8;        // n-tiles of S
  constexpr int kOutTiles = D / 8;                 // n-tiles of O
  extern __shared__ __align__(16) std::uint16_t shared_bf16[];
  std::uint16_t* const q_tile = shared_bf16;                           // (Br, D)
  std::uint16_t* const k_tile = shared_bf16 + kTcQueryRows * kStride;  // (Bc, D)
  std::uint16_t* const v_tile = k_tile + kTcKeyRows * kStride;         // (Bc, D)

  const int n = shape.n;
  const std::size_t head_start = static_cast<std::size_t>(blockIdx.y) * n * D;
  const int first_query = blockIdx.x * kTcQueryRows;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane / 4, t = lane % 4;
  const int warp_row = warp * 16 * kTcRowTiles;  // the warp's first row in the block
  [[maybe_unused]] const float scale_log2 = shape.scale * kLog2e;
  const int end = keys_end(first_query, kTcQueryRows, n, shape.causal);
  const int tiles = (end + kTcKeyRows - 1) / kTcKeyRows;

  // Two groups in flight from the start: Q with K_0, then V_0.
  copy_rows_async<D, kTcQueryRows>(q_tile, q + head_start, first_query, n);
  copy_rows_async<D, kTcKeyRows>(k_tile, k + head_start, 0, end);
  cudalab::cp_async_commit();
  copy_rows_async<D, kTcKeyRows>(v_tile, v + head_start, 0, end);
  cudalab::cp_async_commit();

  float out[kTcRowTiles][kOutTiles][4] = {};  // O~ of rows g and g + 8 of each row tile
  float row_max[kTcRowTiles][2];              // m' (base 2, scaled) of rows g, g + 8
  float row_sum[kTcRowTiles][2];              // this lane's part of l
#pragma unroll
  for (int m = 0; m < kTcRowTiles; ++m) {
    row_max[m][0] = row_max[m][1] = -INFINITY;
    row_sum[m][0] = row_sum[m][1] = 0.0f;
  }

  for (int tile = 0; tile < tiles; ++tile) {
    const int first_key = tile * kTcKeyRows;
    cudalab::cp_async_wait<1>();  // K_j (and in the first round Q) is here; V_j may not be
    __syncthreads();

    [[maybe_unused]] float score[kTcRowTiles][kKeyTiles][4] =
        {};  // S, then P: this lane's part of the warp's 32 x Bc
    // TODO(ex5) begin, about 20 lines: S = Q_w K_j^T: at each k-step, both row tiles' A fragments
    // from q_tile (ldmatrix_x4); for each pair of n-tiles (16 keys), one ldmatrix_x4 of k_tile
    // gives both n-tiles' B fragments, each used for both row tiles (mma_m16n8k16_bf16).
#pragma unroll
    for (int s = 0; s < kSteps; ++s) {
      std::uint32_t a[kTcRowTiles][4];
#pragma unroll
      for (int m = 0; m < kTcRowTiles; ++m) {
        cudalab::ldmatrix_x4(
            a[m], q_tile + (warp_row + 16 * m + lane % 16) * kStride + 16 * s + 8 * (lane / 16));
      }
#pragma unroll
      for (int pair = 0; pair < kKeyTiles / 2; ++pair) {
        std::uint32_t b[4];
        const int key = 16 * pair + lane % 8 + 8 * (lane / 16);
        cudalab::ldmatrix_x4(b, k_tile + key * kStride + 16 * s + 8 * (lane / 8 % 2));
#pragma unroll
        for (int m = 0; m < kTcRowTiles; ++m) {
          cudalab::mma_m16n8k16_bf16(score[m][2 * pair], a[m], b, score[m][2 * pair]);
          cudalab::mma_m16n8k16_bf16(score[m][2 * pair + 1], a[m], b + 2, score[m][2 * pair + 1]);
        }
      }
    }
    // TODO(ex5) end
    __syncthreads();  // every warp is done with K_j: K_{j+1} may overwrite it
    if (tile + 1 < tiles) {
      copy_rows_async<D, kTcKeyRows>(k_tile, k + head_start, first_key + kTcKeyRows, end);
      cudalab::cp_async_commit();
    }

    // TODO(ex5) begin, about 35 lines: per row tile and row (g, then g + 8): -infinity where
    // masked (only tiles the diagonal or the sequence end crosses need it), the tile's max of the
    // unscaled scores over the quad, scaled to base 2; the factor exp2(m_old - m_new);
    // p = exp2(s * scale_log2 - m_new) with one fmaf; the lane's sum; rescale out.
    const bool edge = first_key + kTcKeyRows > n ||
                      (shape.causal && first_key + kTcKeyRows - 1 > first_query + warp_row);
#pragma unroll
    for (int m = 0; m < kTcRowTiles; ++m) {
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int query = first_query + warp_row + 16 * m + g + 8 * half;
        float tile_max = -INFINITY;
#pragma unroll
        for (int j = 0; j < kKeyTiles; ++j) {
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            float& s = score[m][j][2 * half + e];
            if (edge && masked(query, first_key + 8 * j + 2 * t + e, n, shape.causal)) {
              s = -INFINITY;
            }
            tile_max = fmaxf(tile_max, s);
          }
        }
        tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
        tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 2));
        const float new_max = fmaxf(row_max[m][half], tile_max * scale_log2);
        const float base = new_max == -INFINITY ? 0.0f : new_max;  // exercise 2's exp_below
        const float factor = cudalab::exp2_approx(row_max[m][half] - base);
        row_max[m][half] = new_max;
        float sum = 0.0f;
#pragma unroll
        for (int j = 0; j < kKeyTiles; ++j) {
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            float& s = score[m][j][2 * half + e];
            s = cudalab::exp2_approx(fmaf(s, scale_log2, -base));  // now p
            sum += s;
          }
        }
        row_sum[m][half] = row_sum[m][half] * factor + sum;
#pragma unroll
        for (int j = 0; j < kOutTiles; ++j) {
          out[m][j][2 * half] *= factor;
          out[m][j][2 * half + 1] *= factor;
        }
      }
    }
    // TODO(ex5) end

    if (tile + 1 < tiles) {
      cudalab::cp_async_wait<1>();  // V_j is here; K_{j+1} may not be
    } else {
      cudalab::cp_async_wait<0>();
    }
    __syncthreads();

    // TODO(ex5) begin, about 20 lines: O += P V_j: for each k-step of 16 keys, each row tile's A
    // fragment of P from two neighbouring n-tiles of score (pack_bf16x2); for each pair of O's
    // n-tiles, one ldmatrix_x4_trans of v_tile gives both B fragments, used for both row tiles.
#pragma unroll
    for (int s = 0; s < kTcKeyRows / 16; ++s) {
      std::uint32_t p[kTcRowTiles][4];
#pragma unroll
      for (int m = 0; m < kTcRowTiles; ++m) {
        p[m][0] = pack_bf16x2(score[m][2 * s][0], score[m][2 * s][1]);
        p[m][1] = pack_bf16x2(score[m][2 * s][2], score[m][2 * s][3]);
        p[m][2] = pack_bf16x2(score[m][2 * s + 1][0], score[m][2 * s + 1][1]);
        p[m][3] = pack_bf16x2(score[m][2 * s + 1][2], score[m][2 * s + 1][3]);
      }
#pragma unroll
      for (int pair = 0; pair < kOutTiles / 2; ++pair) {
        std::uint32_t b[4];
        const int key = 16 * s + lane % 8 + 8 * (lane / 8 % 2);
        cudalab::ldmatrix_x4_trans(b, v_tile + key * kStride + 16 * pair + 8 * (lane / 16));
#pragma unroll
        for (int m = 0; m < kTcRowTiles; ++m) {
          cudalab::mma_m16n8k16_bf16(out[m][2 * pair], p[m], b, out[m][2 * pair]);
          cudalab::mma_m16n8k16_bf16(out[m][2 * pair + 1], p[m], b + 2, out[m][2 * pair + 1]);
        }
      }
    }
    // TODO(ex5) end
    __syncthreads();  // every warp is done with V_j: V_{j+1} may overwrite it
    if (tile + 1 < tiles) {
      copy_rows_async<D, kTcKeyRows>(v_tile, v + head_start, first_key + kTcKeyRows, end);
      cudalab::cp_async_commit();
    }
  }

#pragma unroll
  for (int m = 0; m < kTcRowTiles; ++m) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int query = first_query + warp_row + 16 * m + g + 8 * half;
      float sum = row_sum[m][half];
      sum += __shfl_xor_sync(0xffffffffu, sum, 1);
      sum += __shfl_xor_sync(0xffffffffu, sum, 2);
      if (query >= n) continue;
      std::uint16_t* o_row = o + head_start + static_cast<std::size_t>(query) * D;
#pragma unroll
      for (int j = 0; j < kOutTiles; ++j) {
        *reinterpret_cast<std::uint32_t*>(o_row + 8 * j + 2 * t) =
            pack_bf16x2(out[m][j][2 * half] / sum, out[m][j][2 * half + 1] / sum);
      }
      if (t == 0) {
        lse[static_cast<std::size_t>(blockIdx.y) * n + query] =
            row_max[m][half] / kLog2e + logf(sum);
      }
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
  if (!(shape.scale > 0.0f)) {
    throw std::invalid_argument("flash_forward_bf16: scale = " + std::to_string(shape.scale) +
                                " must be positive (the kernel takes each tile's maximum of the "
                                "unscaled scores)");
  }
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
