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
//           two K-blocks of mma): the block stages A's 128 x 16-word slice
//           and B's 16-word x 128 slice in shared memory, then every warp
//           loads its fragments from there.
// Each value of A and B is read from global memory once per block, and from
// shared memory by the 2 warps that need it.
//
// In 32-bit words the two formats look alike. A word of A is 2 fp16 values
// (neighbours in a row) or 1 TF32 value, and a word of B is 2 fp16 values
// of one column and consecutive rows k, k + 1 (B is staged with each such
// pair side by side: one 32-bit load per fragment register) or 1 TF32
// value. With g = lane / 4 and t = lane % 4, one K-block of 8 words holds
// the fragments (docs/numerics.md, PTX ISA "Matrix Fragments"):
//   a[0] = A(g, t)   a[1] = A(g + 8, t)   a[2] = A(g, t + 4)   a[3] = A(g + 8, t + 4)
//   b[0] = B(t, g)   b[1] = B(t + 4, g)                (row, word) and (word row, column)
//
// Accumulation order: one fp32 accumulator per element of C, the K-blocks
// chained in increasing k from k = 0, as numerics::mma_dot chains them; so
// the result is bit for bit what the model predicts (no split-K).
//
// Speed: 16-byte global loads where A's and B's rows allow them, shared
// rows padded so that fragment loads hit 32 different banks, two shared
// buffers and register double buffering (the next step's global loads are
// in flight while the tensor cores work on this one). What it lacks against
// cuBLAS: ldmatrix, swizzled shared memory, cp.async / TMA pipelines of
// several stages and Hopper's wgmma.
//
// The exercise is the TODO regions of labs/02_precision/ in this file, from
// each `begin` line to its `end` line; README.md says what they want.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "cudalab/check.hpp"
#include "cudalab/kernel.hpp"
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
inline constexpr int step_words = 16;             // K per step, in words
inline constexpr int kblock_words = 8;            // K of one mma, in words
// Padding: a fragment load reads rows g = 0..7 of A (word t) and word rows
// t = 0..3 of B (column g). A's row of 20 words puts the 8 rows 20 banks
// apart (0, 20, 8, 28, 16, 4, 24, 12: no two lanes in one bank), B's row of
// 136 words puts the 4 word rows 8 banks apart. Both keep 16-byte stores
// aligned.
inline constexpr int a_stride = step_words + 4;
inline constexpr int b_stride = block_n + 8;
// One step's slices in 16-byte chunks (4 words): A's is 128 rows of 4
// chunks, B's 16 word rows of 32 chunks; each thread moves a_chunks of A
// and b_chunks of B.
inline constexpr int a_row_chunks = step_words / 4;
inline constexpr int b_row_chunks = block_n / 4;
inline constexpr int a_chunks = block_m * a_row_chunks / threads;     // 4
inline constexpr int b_chunks = step_words * b_row_chunks / threads;  // 4

// A 16-byte chunk of one row of a matrix (8 fp16 or 4 TF32 values) from
// column `first` on, as 4 words; zeros past the row's end and for a row
// outside the matrix. One 16-byte load where the chunk is whole and aligned.
template <class Bits>
__device__ inline uint4 load_chunk(const Bits* matrix, int row, int rows, int cols, int first,
                                   bool vectors) {
  constexpr int values = 16 / sizeof(Bits);
  uint4 chunk = {0, 0, 0, 0};
  if (row >= rows) return chunk;
  const Bits* values_row = matrix + static_cast<std::size_t>(row) * cols;
  if (vectors && first + values <= cols) {
    return *reinterpret_cast<const uint4*>(values_row + first);
  }
  std::uint32_t words[4] = {0, 0, 0, 0};
  constexpr int per_word = 4 / sizeof(Bits);
  for (int i = 0; i < values; ++i) {  // a fixed count: unrolled, `words` stays in registers
    if (first + i < cols) {
      words[i / per_word] |= static_cast<std::uint32_t>(values_row[first + i])
                             << (16 * (i % per_word));
    }
  }
  chunk.x = words[0];
  chunk.y = words[1];
  chunk.z = words[2];
  chunk.w = words[3];
  return chunk;
}

// Two rows' words of fp16 pairs (v0 v1 of row k, w0 w1 of row k + 1) as
// B's staged words (v0 w0) and (v1 w1): the fragment's pairs are columns.
__device__ inline uint4 interleave_low(uint4 row_k, uint4 row_k1) {
  return {(row_k.x & 0xffffu) | (row_k1.x << 16), (row_k.x >> 16) | (row_k1.x & 0xffff0000u),
          (row_k.y & 0xffffu) | (row_k1.y << 16), (row_k.y >> 16) | (row_k1.y & 0xffff0000u)};
}
__device__ inline uint4 interleave_high(uint4 row_k, uint4 row_k1) {
  return {(row_k.z & 0xffffu) | (row_k1.z << 16), (row_k.z >> 16) | (row_k1.z & 0xffff0000u),
          (row_k.w & 0xffffu) | (row_k1.w << 16), (row_k.w >> 16) | (row_k1.w & 0xffff0000u)};
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
  bool a_vectors, b_vectors;  // may A's (B's) rows be read 16 bytes at a time?
};

// One step's slices of A and B on their way from global to shared memory.
struct Staged {
  uint4 a[a_chunks];
  uint4 b[b_chunks];
};

using ASlice = std::uint32_t[block_m][a_stride];
using BSlice = std::uint32_t[step_words][b_stride];
// Two of each (the double buffer), in dynamic shared memory: a static
// __shared__ array may not pass 48 KiB, which a deeper step would.
inline constexpr std::size_t shared_bytes = 2 * (sizeof(ASlice) + sizeof(BSlice));

// Staging, part 1: this thread's chunks of the slices of the step that
// starts at K = k0 (in values), from global memory to registers (load_chunk).
// Chunk c = threadIdx.x + threads * i (i = 0, 1, ...) of a slice is chunk
// c % row_chunks of its row c / row_chunks: a warp reads whole rows, which
// keeps global loads coalesced. fp16 B is the exception: a word row kp holds
// rows 2 kp and 2 kp + 1 of B, so the thread loads chunk c of both rows
// (staged.b[2 i] and staged.b[2 i + 1]), 8 columns each, for c < half the
// slice's chunks.
// (The parameters are [[maybe_unused]] only so that the empty stubs in labs/
// compile without warnings.)
template <class Bits>
__device__ __forceinline__ void load_step([[maybe_unused]] const Gemm<Bits>& gemm,
                                          [[maybe_unused]] int block_row,
                                          [[maybe_unused]] int block_col, [[maybe_unused]] int k0,
                                          [[maybe_unused]] Staged& staged) {
  constexpr int per_word = 4 / sizeof(Bits);
  for (int i = 0; i < a_chunks; ++i) {
    const int chunk = threadIdx.x + threads * i;
    staged.a[i] = load_chunk(gemm.a, block_row + chunk / a_row_chunks, gemm.m, gemm.k,
                             k0 + (chunk % a_row_chunks) * 4 * per_word, gemm.a_vectors);
  }
  if constexpr (sizeof(Bits) == 2) {
    constexpr int pair_chunks = block_n / 8;  // 8 fp16 columns per chunk
    for (int i = 0; i < b_chunks / 2; ++i) {
      const int chunk = threadIdx.x + threads * i;
      const int row = k0 + 2 * (chunk / pair_chunks);
      const int first = block_col + (chunk % pair_chunks) * 8;
      staged.b[2 * i] = load_chunk(gemm.b, row, gemm.k, gemm.n, first, gemm.b_vectors);
      staged.b[2 * i + 1] = load_chunk(gemm.b, row + 1, gemm.k, gemm.n, first, gemm.b_vectors);
    }
  } else {
    for (int i = 0; i < b_chunks; ++i) {
      const int chunk = threadIdx.x + threads * i;
      staged.b[i] = load_chunk(gemm.b, k0 + chunk / b_row_chunks, gemm.k, gemm.n,
                               block_col + (chunk % b_row_chunks) * 4, gemm.b_vectors);
    }
  }
}

// Staging, part 2: the registers of load_step to the block's shared slices,
// each chunk where load_step took it from, 16 bytes per store; fp16 B's two
// rows interleaved into word pairs (interleave_low, then interleave_high:
// the 8 words of word row kp from column 8 c on).
template <class Bits>
__device__ __forceinline__ void store_step([[maybe_unused]] const Staged& staged,
                                           [[maybe_unused]] ASlice& a_slice,
                                           [[maybe_unused]] BSlice& b_slice) {
  for (int i = 0; i < a_chunks; ++i) {
    const int chunk = threadIdx.x + threads * i;
    *reinterpret_cast<uint4*>(&a_slice[chunk / a_row_chunks][(chunk % a_row_chunks) * 4]) =
        staged.a[i];
  }
  if constexpr (sizeof(Bits) == 2) {
    constexpr int pair_chunks = block_n / 8;
    for (int i = 0; i < b_chunks / 2; ++i) {
      const int chunk = threadIdx.x + threads * i;
      uint4* words =
          reinterpret_cast<uint4*>(&b_slice[chunk / pair_chunks][(chunk % pair_chunks) * 8]);
      const uint4 low = interleave_low(staged.b[2 * i], staged.b[2 * i + 1]);
      const uint4 high = interleave_high(staged.b[2 * i], staged.b[2 * i + 1]);
      // 16-byte stores go out 8 lanes at a time; lanes 4..7 of each 8 store
      // their high half first, so that each 8 hit 32 different banks.
      const bool high_first = threadIdx.x / 4 % 2 == 1;
      words[high_first ? 1 : 0] = high_first ? high : low;
      words[high_first ? 0 : 1] = high_first ? low : high;
    }
  } else {
    for (int i = 0; i < b_chunks; ++i) {
      const int chunk = threadIdx.x + threads * i;
      *reinterpret_cast<uint4*>(&b_slice[chunk / b_row_chunks][(chunk % b_row_chunks) * 4]) =
          staged.b[i];
    }
  }
}

// The warp's mma of one step: for each of its two K-blocks (words kb = 0,
// then 8), the fragments of the warp's row tiles i (rows warp_row + 16 i of
// the A slice) and column tiles j (columns warp_col + 8 j of the B slice)
// by the layout in this file's header, then one mma into acc[i][j] per tile.
template <class Bits>
__device__ __forceinline__ void mma_step([[maybe_unused]] const ASlice& a_slice,
                                         [[maybe_unused]] const BSlice& b_slice,
                                         [[maybe_unused]] int warp_row,
                                         [[maybe_unused]] int warp_col, [[maybe_unused]] int lane,
                                         [[maybe_unused]] float (&acc)[tiles_m][tiles_n][4]) {
  const int g = lane / 4;
  const int t = lane % 4;
  for (int kb = 0; kb < step_words; kb += kblock_words) {
    std::uint32_t a_fragment[tiles_m][4];
    std::uint32_t b_fragment[tiles_n][2];
    for (int i = 0; i < tiles_m; ++i) {
      const int row = warp_row + 16 * i + g;
      a_fragment[i][0] = a_slice[row][kb + t];
      a_fragment[i][1] = a_slice[row + 8][kb + t];
      a_fragment[i][2] = a_slice[row][kb + t + 4];
      a_fragment[i][3] = a_slice[row + 8][kb + t + 4];
    }
    for (int j = 0; j < tiles_n; ++j) {
      const int col = warp_col + 8 * j + g;
      b_fragment[j][0] = b_slice[kb + t][col];
      b_fragment[j][1] = b_slice[kb + t + 4][col];
    }
    for (int i = 0; i < tiles_m; ++i) {
      for (int j = 0; j < tiles_n; ++j) mma<Bits>(acc[i][j], a_fragment[i], b_fragment[j]);
    }
  }
}

// Bits: std::uint16_t (fp16 patterns) or std::uint32_t (TF32 as fp32 patterns).
template <class Bits>
__global__ void tc_gemm_kernel(Gemm<Bits> gemm) {
  constexpr int step_k = step_words * 4 / sizeof(Bits);  // K per step, in values
  ASlice* const a_slices = reinterpret_cast<ASlice*>(cudalab::dynamic_shared<std::uint32_t>());
  BSlice* const b_slices = reinterpret_cast<BSlice*>(a_slices + 2);

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
  Staged staged;
  if (steps > 0) {
    load_step(gemm, block_row, block_col, 0, staged);
    store_step<Bits>(staged, a_slices[0], b_slices[0]);
  }
  __syncthreads();
  for (int step = 0; step < steps; ++step) {
    // Register double buffering: the next step's global loads go out now and
    // land while the tensor cores work on this step.
    if (step + 1 < steps) load_step(gemm, block_row, block_col, (step + 1) * step_k, staged);
    if (warp_has_work) {
      mma_step<Bits>(a_slices[step % 2], b_slices[step % 2], warp_row, warp_col, lane, acc);
    }
    // The other buffer was last read in the previous step, before the
    // barrier that ended it: free to fill while this one is still read.
    if (step + 1 < steps)
      store_step<Bits>(staged, a_slices[(step + 1) % 2], b_slices[(step + 1) % 2]);
    __syncthreads();
  }

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
  // 16-byte loads need every row of the matrix to start 16-byte aligned.
  constexpr int vector_values = 16 / sizeof(Bits);
  const auto aligned = [](const Bits* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  const bool a_vectors = aligned(a) && k % vector_values == 0;
  const bool b_vectors = aligned(b) && n % vector_values == 0;
  const Gemm<Bits> gemm{a, b, c, m, n, k, a_vectors, b_vectors};
  CUDA_CHECK(cudaFuncSetAttribute(tc_gemm_kernel<Bits>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(shared_bytes)));
  tc_gemm_kernel<Bits><<<grid, threads, shared_bytes>>>(gemm);
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
