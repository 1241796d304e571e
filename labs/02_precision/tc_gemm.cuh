// Lab 02, exercise 5: a tensor-core GEMM on mma.sync.
//
// C (m x n, fp32) = A (m x k) * B (k x n), all row-major, on the warp-wide
// tensor-core instruction: mma.sync m16n8k16 for fp16 operands, m16n8k8 for
// TF32 ones (fp32 patterns; the tensor core ignores their low 13 bits, so
// rounding them first is the caller's business: exercise 6).
//
// The work is split three ways:
//   block   4 warps, a 128 x 128 tile of C
//   warp    a 64 x 64 part of it: 4 x 8 mma tiles of 16 x 8, 128 fp32
//           accumulators per lane, 32 independent mma per K-block; its
//           fragments, 16 words of A and 16 of B per lane, feed all 32 (a
//           64 x 32 part would need 24 words for 16 mma: shared memory,
//           not the tensor cores, would be the limit)
//   step    K in slices of 16 32-bit words (32 fp16 or 16 TF32 values,
//           two K-blocks of mma): the block stages A's 128-row slice and
//           B's 128-column slice of it in shared memory, then every warp
//           loads its fragments from there.
// Each value of A and B is read from global memory once per block, and from
// shared memory by the 2 warps that need it.
//
// Shared memory holds each step as 32-bit words: a word of A is 2 fp16
// values (neighbours in a row) or 1 TF32 value; B is staged row by row as
// it lies in global memory (a row of B is a row of k). With g = lane / 4 and
// t = lane % 4, one K-block (16 fp16 or 8 TF32 values) holds the fragments
// (docs/numerics.md, PTX ISA "Matrix Fragments"):
//   fp16  a[0] = A(g, 2t..2t+1)  a[1] = A(g+8, 2t..)  a[2] = A(g, 2t+8..)  a[3] = A(g+8, 2t+8..)
//         b[0] = B(2t..2t+1, g)  b[1] = B(2t+8..2t+9, g)          (two values, lower k low)
//   TF32  a[0] = A(g, t)  a[1] = A(g + 8, t)  a[2] = A(g, t + 4)  a[3] = A(g + 8, t + 4)
//         b[0] = B(t, g)  b[1] = B(t + 4, g)
// fp16 fragments come from shared memory through ldmatrix (cudalab/
// ldmatrix.hpp): one x4 gives a whole A fragment, one x4.trans the B
// fragments of two neighbouring 8-column tiles (B's pairs run down a
// column, so the 8 x 8 matrices are read transposed). TF32 values are 32
// bits, which ldmatrix (16-bit values) does not deliver in fragment order,
// so TF32 fragments are plain 32-bit loads.
//
// Accumulation order: one fp32 accumulator per element of C, the K-blocks
// chained in increasing k from k = 0, as numerics::mma_dot chains them; so
// the result is bit for bit what the model predicts (no split-K).
//
// Speed: a ring of `stages` shared buffers filled by cp.async (cudalab/
// async_copy.hpp: global to shared without a detour through registers), so
// that the next stages - 1 steps are on their way while the tensor cores
// work on this one, with one barrier per step; ldmatrix for fp16 fragments;
// shared rows padded so that fragment loads and ldmatrix hit 32 different
// banks. Where a matrix's rows do not allow 16-byte copies (a row length
// that is not a multiple of 16 bytes, a misaligned pointer), values are
// loaded one by one and stored to the ring, the same way round. What it
// still lacks against cuBLAS: Hopper's TMA and wgmma.
//
// The exercise is the TODO regions of labs/02_precision/ in this file, from
// each `begin` line to its `end` line; README.md says what they want.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "cudalab/async_copy.hpp"
#include "cudalab/check.hpp"
#include "cudalab/kernel.hpp"
#include "cudalab/ldmatrix.hpp"
#include "cudalab/mma.hpp"

namespace lab02 {
inline namespace CUDALAB_BACKEND {
namespace tc_gemm_parts {

inline constexpr int block_m = 128;  // rows of C per block
inline constexpr int block_n = 128;  // columns of C per block
inline constexpr int warps_m = 2;    // warps along M ...
inline constexpr int warps_n = 2;    // ... and along N
inline constexpr int threads = 32 * warps_m * warps_n;
inline constexpr int warp_m = block_m / warps_m;  // 64 rows of C per warp
inline constexpr int warp_n = block_n / warps_n;  // 64 columns of C per warp
inline constexpr int tiles_m = warp_m / 16;       // 4 mma tiles per warp along M
inline constexpr int tiles_n = warp_n / 8;        // and 8 along N
inline constexpr int step_words = 16;             // K per step, in words: 32 fp16 or 16 TF32 values
inline constexpr int stages = 4;                  // shared buffers in the ring
// Padding: A's row of 16 words is stored in 20 (80 bytes): the 8 rows that a
// fragment load or an ldmatrix phase reads then start in 8 different groups
// of 4 banks (0, 20, 8, 28, ... for 32-bit loads). B's row of 128 columns
// gets 16 bytes (fp16) or 32 bytes (TF32) more: 272 bytes puts ldmatrix's 8
// rows in 8 different groups, 136 words puts TF32's 4 word rows t 8 banks
// apart. Rows stay multiples of 16 bytes for cp.async.
inline constexpr int a_stride = step_words + 4;
template <class Bits>
inline constexpr int b_rows = step_words * 4 / sizeof(Bits);  // rows of B per step: K values
template <class Bits>
inline constexpr int b_stride = block_n * sizeof(Bits) / 4 + (sizeof(Bits) == 2 ? 4 : 8);
// One step's slices in 16-byte chunks: A's is 128 rows of 4 chunks, B's
// b_rows rows of 16 (fp16) or 32 (TF32) chunks; 512 chunks each, so every
// thread moves `a_chunks` of A and as many of B.
inline constexpr int a_row_chunks = step_words / 4;
template <class Bits>
inline constexpr int b_row_chunks = block_n * sizeof(Bits) / 16;
inline constexpr int a_chunks = block_m * a_row_chunks / threads;  // 4

// A 16-byte chunk of one row of a matrix (8 fp16 or 4 TF32 values) from
// column `first` on, one value at a time; zeros past the row's end and for
// a row outside the matrix.
template <class Bits>
__device__ inline uint4 load_chunk(const Bits* matrix, int row, int rows, int cols, int first) {
  constexpr int values = 16 / sizeof(Bits);
  constexpr int per_word = 4 / sizeof(Bits);
  std::uint32_t words[4] = {0, 0, 0, 0};
  if (row < rows) {
    const Bits* values_row = matrix + static_cast<std::size_t>(row) * cols;
    for (int i = 0; i < values; ++i) {  // a fixed count: unrolled, `words` stays in registers
      if (first + i < cols) {
        words[i / per_word] |= static_cast<std::uint32_t>(values_row[first + i])
                               << (16 * (i % per_word));
      }
    }
  }
  return {words[0], words[1], words[2], words[3]};
}

// The same chunk to `to` in shared memory. With `vectors` (rows a whole
// number of 16-byte chunks, 16-byte aligned) a chunk lies wholly inside the
// matrix or wholly outside: one cp.async, which zero-fills a chunk outside
// (0 bytes read, from any valid address). Otherwise load_chunk and a store.
template <class Bits>
__device__ inline void copy_chunk(std::uint32_t* to, const Bits* matrix, int row, int rows,
                                  int cols, int first, bool vectors) {
  if (vectors) {
    const bool inside = row < rows && first < cols;
    const Bits* from = inside ? matrix + static_cast<std::size_t>(row) * cols + first : matrix;
    cudalab::cp_async_16_zfill(to, from, inside ? 16 : 0);
  } else {
    *reinterpret_cast<uint4*>(to) = load_chunk(matrix, row, rows, cols, first);
  }
}

// One K-block of one 16 x 8 tile: d = a b + d, in the format of Bits.
template <class Bits>
__device__ inline void mma(float* d, const std::uint32_t* a, const std::uint32_t* b) {
  if constexpr (sizeof(Bits) == 2) {
    cudalab::mma_m16n8k16_f16(d, a, b, d);
  } else {
    cudalab::mma_m16n8k8_tf32(d, a, b, d);
  }
}

// The kernel's arguments.
template <class Bits>
struct Gemm {
  const Bits* a;
  const Bits* b;
  float* c;
  int m, n, k;
  bool a_vectors, b_vectors;  // may A's (B's) rows be copied 16 bytes at a time?
};

using ASlice = std::uint32_t[block_m][a_stride];
template <class Bits>
using BSlice = std::uint32_t[b_rows<Bits>][b_stride<Bits>];
// The ring, in dynamic shared memory: a static __shared__ array may not
// pass 48 KiB, which it does.
template <class Bits>
inline constexpr std::size_t shared_bytes = stages*(sizeof(ASlice) + sizeof(BSlice<Bits>));

// Staging: this thread's chunks of the slices of the step that starts at
// K = k0 (in values), from global to shared memory (copy_chunk, each chunk
// to the same place in the slice). Chunk c = threadIdx.x + threads * i
// (i = 0, 1, ...) of a slice is chunk c % row_chunks of its row
// c / row_chunks: a warp reads whole rows, which keeps global loads
// coalesced. A's rows are rows of A (k0 on), B's rows are rows k0 + r of B.
// (The parameters are [[maybe_unused]] only so that the empty stubs in labs/
// compile without warnings.)
template <class Bits>
__device__ __forceinline__ void stage_step([[maybe_unused]] const Gemm<Bits>& gemm,
                                           [[maybe_unused]] int block_row,
                                           [[maybe_unused]] int block_col, [[maybe_unused]] int k0,
                                           [[maybe_unused]] ASlice& a_slice,
                                           [[maybe_unused]] BSlice<Bits>& b_slice) {
  // TODO(ex5) begin, about 14 lines: a_chunks chunks of A and as many of B,
  // chunk c -> row c / row_chunks, part c % row_chunks; copy_chunk(&slice[row][4 part],
  // matrix, row in the matrix, rows, cols, first column, gemm.a_vectors or gemm.b_vectors).
  // TODO(ex5) end
}

// The warp's mma of one step: for each K-block, the fragments of the warp's
// row tiles i (rows warp_row + 16 i of the A slice) and column tiles j
// (columns warp_col + 8 j of the B slice) by the layout in this file's
// header, then one mma into acc[i][j] per tile.
template <class Bits>
__device__ __forceinline__ void mma_step([[maybe_unused]] const ASlice& a_slice,
                                         [[maybe_unused]] const BSlice<Bits>& b_slice,
                                         [[maybe_unused]] int warp_row,
                                         [[maybe_unused]] int warp_col, [[maybe_unused]] int lane,
                                         [[maybe_unused]] float (&acc)[tiles_m][tiles_n][4]) {
  // TODO(ex5) begin, about 40 lines: for each K-block kb of the step: a[tiles_m][4]
  // and b[tiles_n][2] fragment registers from a_slice and b_slice (lane = 4 g + t;
  // fp16: ldmatrix_x4 / ldmatrix_x4_trans, or plain loads; TF32: plain 32-bit loads),
  // then mma<Bits>(acc[i][j], a[i], b[j]) for every i, j.
  // TODO(ex5) end
}

// Bits: std::uint16_t (fp16 patterns) or std::uint32_t (TF32 as fp32 patterns).
template <class Bits>
__global__ void tc_gemm_kernel(Gemm<Bits> gemm) {
  constexpr int step_k = b_rows<Bits>;  // K per step, in values
  ASlice* const a_slices = reinterpret_cast<ASlice*>(cudalab::dynamic_shared<std::uint32_t>());
  BSlice<Bits>* const b_slices = reinterpret_cast<BSlice<Bits>*>(a_slices + stages);

  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  const int block_row = blockIdx.y * block_m;
  const int block_col = blockIdx.x * block_n;
  const int warp_row = (warp / warps_n) * warp_m;
  const int warp_col = (warp % warps_n) * warp_n;
  // A warp whose whole part lies outside C skips the mma (all 32 lanes alike).
  const bool warp_has_work = block_row + warp_row < gemm.m && block_col + warp_col < gemm.n;
  const int steps = (gemm.k + step_k - 1) / step_k;

  float acc[tiles_m][tiles_n][4] = {};
  // The ring: step s lives in buffer s % stages. The first stages - 1 steps
  // go out now; one commit group per step, empty or not, so that "all but
  // the newest stages - 2 groups have landed" always means "step s has".
  for (int s = 0; s < stages - 1; ++s) {
    if (s < steps) stage_step(gemm, block_row, block_col, s * step_k, a_slices[s], b_slices[s]);
    cudalab::cp_async_commit();
  }
  for (int step = 0; step < steps; ++step) {
    cudalab::cp_async_wait<stages - 2>();  // this thread's copies of `step` have landed
    // ... and every thread's; and every warp is done with step - 1's buffer,
    // which the copies of step + stages - 1 now refill.
    __syncthreads();
    const int next = step + stages - 1;
    if (next < steps) {
      stage_step(gemm, block_row, block_col, next * step_k, a_slices[next % stages],
                 b_slices[next % stages]);
    }
    cudalab::cp_async_commit();
    if (warp_has_work) {
      mma_step<Bits>(a_slices[step % stages], b_slices[step % stages], warp_row, warp_col, lane,
                     acc);
    }
  }
  cudalab::cp_async_wait_all();  // no copy may still be writing when the block ends

  // Lane (g, t) holds rows g (r = 0, 1) and g + 8 (r = 2, 3), columns
  // 2t + r % 2 of each of its 16 x 8 tiles; only those inside C are stored.
  const int g = lane / 4;
  const int t = lane % 4;
  // (Four stores written out rather than a loop over r: nvcc then unrolls
  // the loops and acc stays in registers; a loop of 128 stores it did not,
  // and acc went to local memory.)
  const auto store = [&](int row, int col, float value) {
    if (row < gemm.m && col < gemm.n) gemm.c[static_cast<std::size_t>(row) * gemm.n + col] = value;
  };
  for (int i = 0; i < tiles_m; ++i) {
    for (int j = 0; j < tiles_n; ++j) {
      const int row = block_row + warp_row + 16 * i + g;
      const int col = block_col + warp_col + 8 * j + 2 * t;
      store(row, col, acc[i][j][0]);
      store(row, col + 1, acc[i][j][1]);
      store(row + 8, col, acc[i][j][2]);
      store(row + 8, col + 1, acc[i][j][3]);
    }
  }
}

template <class Bits>
inline void tc_gemm(const Bits* a, const Bits* b, float* c, int m, int n, int k, const char* name) {
  if (m < 0 || n < 0 || k < 0) {
    throw std::invalid_argument(std::string(name) +
                                ": sizes must be >= 0, not m = " + std::to_string(m) +
                                ", n = " + std::to_string(n) + ", k = " + std::to_string(k));
  }
  if (m == 0 || n == 0) return;
  const dim3 grid((n + block_n - 1) / block_n, (m + block_m - 1) / block_m);
  if (grid.y > 65535) throw std::invalid_argument(std::string(name) + ": m is too large");
  // 16-byte copies need every row of the matrix to start 16-byte aligned.
  constexpr int vector_values = 16 / sizeof(Bits);
  const auto aligned = [](const Bits* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  const bool a_vectors = aligned(a) && k % vector_values == 0;
  const bool b_vectors = aligned(b) && n % vector_values == 0;
  const Gemm<Bits> gemm{a, b, c, m, n, k, a_vectors, b_vectors};
  constexpr std::size_t ring_bytes = shared_bytes<Bits>;
  CUDA_CHECK(cudaFuncSetAttribute(tc_gemm_kernel<Bits>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(ring_bytes)));
  tc_gemm_kernel<Bits><<<grid, threads, ring_bytes>>>(gemm);
}

}  // namespace tc_gemm_parts

// Row-major C (m x n, fp32) = A (m x k) * B (k x n); device pointers.
inline void tc_gemm_fp16(const __half* a, const __half* b, float* c, int m, int n, int k) {
  tc_gemm_parts::tc_gemm(reinterpret_cast<const std::uint16_t*>(a),
                         reinterpret_cast<const std::uint16_t*>(b), c, m, n, k, "tc_gemm_fp16");
}

inline void tc_gemm_tf32(const float* a, const float* b, float* c, int m, int n, int k) {
  tc_gemm_parts::tc_gemm(reinterpret_cast<const std::uint32_t*>(a),
                         reinterpret_cast<const std::uint32_t*>(b), c, m, n, k, "tc_gemm_tf32");
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab02
