// Kernels of the emulator's test suite, in plain CUDA as a lab writes them:
// the emulator build compiles the rewritten copy of each test file that
// includes this one, instrumented (tests/emu/CMakeLists.txt), so reports name
// this file's lines. Some carry planted bugs on purpose (marked "PLANTED
// BUG"): the tests check that the emulator reports them.
#pragma once

#include <cstddef>

#include "cudalab/kernel.hpp"

namespace emu_tests {
inline namespace CUDALAB_BACKEND {

// Writes, for every thread of a 3-D grid, its coordinates at its linear global index.
__global__ void write_coordinates(int4* out) {
  unsigned bx = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  unsigned tx = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  unsigned long long i =
      static_cast<unsigned long long>(bx) * (blockDim.x * blockDim.y * blockDim.z) + tx;
  out[i] = int4{static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x),
                static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y),
                static_cast<int>(blockIdx.z * blockDim.z + threadIdx.z), static_cast<int>(tx)};
}

// Sum of each warp's 32 values, by a __shfl_down_sync tree; lane 0 writes it.
__global__ void warp_sum_down(const int* in, int* out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  if (threadIdx.x % 32 == 0) out[i / 32] = v;
}

// Butterfly (xor) all-reduce: every lane ends with the warp's maximum.
__global__ void warp_max_xor(const int* in, int* out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  for (int mask = 16; mask > 0; mask /= 2) v = max(v, __shfl_xor_sync(0xffffffffu, v, mask));
  out[i] = v;
}

// Each lane reads lane (src) of its 8-wide segment; also exercises shfl_up.
__global__ void warp_shfl_segments(const int* in, int* out, int* out_up) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  out[i] = __shfl_sync(0xffffffffu, v, 3, 8);
  out_up[i] = __shfl_up_sync(0xffffffffu, v, 1);
}

// The ballot of (x > 0) per warp, and __any/__all of it.
__global__ void warp_votes(const float* in, unsigned* ballot, int* any, int* all) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = in[i];
  unsigned b = __ballot_sync(0xffffffffu, x > 0.0f);
  int a = __any_sync(0xffffffffu, x > 0.0f);
  int l = __all_sync(0xffffffffu, x > 0.0f);
  if (threadIdx.x % 32 == 0) {
    ballot[i / 32] = b;
    any[i / 32] = a;
    all[i / 32] = l;
  }
}

// Histogram of values into `bins` bins, plus a float sum (of v % 64, small
// enough that the float sum is exact in any order) and an int maximum, all
// through atomics from every block.
__global__ void atomic_histogram(const int* values, int n, unsigned* bins, int bin_count,
                                 float* sum, int* maximum) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = values[i];
  atomicAdd(&bins[v % bin_count], 1u);
  atomicAdd(sum, static_cast<float>(v % 64));
  atomicMax(maximum, v);
}

// A spin lock built from atomicCAS/atomicExch guarding a non-atomic counter
// (one thread per block takes it).
__global__ void cas_lock_counter(int* lock, int* counter) {
  if (threadIdx.x != 0) return;
  while (atomicCAS(lock, 0, 1) != 0) {
  }
  int c = atomicAdd(counter, 0);  // read through an atomic: other blocks wrote it
  atomicExch(counter, c + 1);
  atomicExch(lock, 0);
}

constexpr int kTile = 32;

// out (cols x rows) = in (rows x cols) transposed, through a padded shared
// tile; launched with (32, 8) blocks, each thread moves 4 elements.
__global__ void transpose_tiled(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[kTile][kTile + 1];  // (32,33): +1 avoids bank conflicts
  int x = blockIdx.x * kTile + threadIdx.x;
  int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += 8) {
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  }
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x;
  y = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += 8) {
    if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
  }
}

// The same transpose without the padding: reading a tile column hits one bank 32 times.
__global__ void transpose_unpadded(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[kTile][kTile];  // (32,32)
  int x = blockIdx.x * kTile + threadIdx.x;
  int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += 8) {
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  }
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x;
  y = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += 8) {
    if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
  }
}

constexpr int kReduceBlock = 256;

// Block sum in shared memory, one barrier per halving step.
__global__ void block_sum(const float* in, float* out, int n) {
  __shared__ float partial[kReduceBlock];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (static_cast<int>(threadIdx.x) < stride)
      partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

// PLANTED BUG: the barrier inside the loop is missing, so a thread reads a
// partial sum another thread of its block may not have written yet.
__global__ void block_sum_missing_barrier(const float* in, float* out, int n) {
  __shared__ float partial[kReduceBlock];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (static_cast<int>(threadIdx.x) < stride)
      partial[threadIdx.x] += partial[threadIdx.x + stride];
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

// PLANTED BUG: `<=` lets the last thread write one element past the end.
__global__ void scale_off_by_one(float* data, int n, float factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) data[i] = data[i] * factor;
}

// PLANTED BUG: the barrier is inside a branch only some threads take.
__global__ void barrier_in_branch(float* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    data[i] = 2.0f * data[i];
    __syncthreads();
  }
}

// PLANTED BUG: reads `out` before anything wrote it (accumulates into it).
__global__ void accumulate_uninitialised(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] += in[i];
}

// PLANTED BUG: every block writes element 0 without an atomic.
__global__ void every_block_writes_first(float* out) {
  if (threadIdx.x == 0) out[0] = static_cast<float>(blockIdx.x);
}

// PLANTED BUG: lanes past n leave before the warp shuffle that names them.
__global__ void shuffle_after_early_exit(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = data[i];
  v += __shfl_down_sync(0xffffffffu, v, 1);
  data[i] = v;
}

// PLANTED BUG (indexing): threads (2k, 2k+1) both write element k; nobody
// writes the upper half. Coverage shows it.
__global__ void write_half_twice(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i / 2] = i;
}

// Uses dynamic shared memory: reverses each block's chunk.
__global__ void reverse_in_block(const int* in, int* out, int n) {
  extern __shared__ int buffer[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  buffer[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  int j = blockIdx.x * blockDim.x + (blockDim.x - 1 - threadIdx.x);
  if (j < n) out[j] = buffer[threadIdx.x];
}

// 16-byte accesses through float4 pointers.
__global__ void copy_float4(const float* in, float* out, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  auto in4 = reinterpret_cast<const float4*>(in);
  auto out4 = reinterpret_cast<float4*>(out);
  if (i < n4) out4[i] = in4[i];
}

// Lanes exchange values through shared memory; __syncwarp orders the write
// before the neighbour's read (with `sync` false, that is a PLANTED BUG).
__global__ void warp_exchange(int* data, bool sync) {
  __shared__ int slots[64];
  unsigned t = threadIdx.x;
  slots[t] = data[t];
  if (sync) __syncwarp();
  data[t] = slots[t ^ 1u];
}

// Reduced-precision storage: y = 2 * x in half and in bfloat16, computed in float.
__global__ void double_half_and_bf16(__half* h, __nv_bfloat16* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  h[i] = __float2half(2.0f * __half2float(h[i]));
  b[i] = __float2bfloat16(2.0f * __bfloat162float(b[i]));
}

// PLANTED BUG: the two halves of the block wait at different __syncthreads calls.
__global__ void barriers_at_two_sites(int* data) {
  if (threadIdx.x < 16) {
    data[threadIdx.x] = 1;
    __syncthreads();
  } else {
    data[threadIdx.x] = 2;
    __syncthreads();
  }
}

// Coalesced 4-byte stores, alone and followed by an atomic per thread into 8
// adjacent counters (one 32-byte sector per warp): ncu counts the atomics
// apart, so the store figures of the two kernels are the same.
__global__ void store_index(int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = i;
}
__global__ void store_index_and_count(int* out, unsigned* counts) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = i;
  atomicAdd(&counts[i % 8], 1u);
}

// Each statement stores the number of the line it is on (in the low 12 bits;
// bit 12 is the low bit of what it read, so that the read is not optimised
// away) and reads `in` on that line, through `*p`, `p[i]` and `*(p + i)` on
// kernel parameters: a test compares the source sites of the accesses (and of
// their reports) with it.
constexpr int kLineBits = 0xfff;
__global__ void accesses_store_their_line(const int* in, int* out) {
  *out = __LINE__ | (*in & 1) << 12;
  out[1] = __LINE__ | (in[1] & 1) << 12;
  *(out + 2) = __LINE__ | (*(in + 2) & 1) << 12;
}

// Lanes whose input is negative return; the others of the warp then meet in
// full-mask collectives, which is defined on a GPU (only lanes that have not
// exited must arrive; the votes count those). out[3i..3i+2] = ballot, all, any
// of (input odd).
__global__ void votes_after_some_lanes_exit(const int* in, unsigned* out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  if (v < 0) return;
  __syncwarp();
  unsigned ballot = __ballot_sync(0xffffffffu, v % 2);
  int all = __all_sync(0xffffffffu, v % 2);
  int any = __any_sync(0xffffffffu, v % 2);
  out[3 * i] = ballot;
  out[3 * i + 1] = static_cast<unsigned>(all);
  out[3 * i + 2] = static_cast<unsigned>(any);
}

// PLANTED BUG: lanes 0-7 return; lanes 8-15 wait in a full-mask __syncwarp
// for lanes 16-31, which wait in another __syncwarp whose mask names lanes
// 8-11: neither can complete. Only lanes 16-31 are missing (not 0-7).
__global__ void collectives_waiting_on_each_other(int* data) {
  unsigned lane = threadIdx.x % 32;
  if (lane < 8) return;
  if (lane < 16) {
    __syncwarp(0xffffffffu);
  } else {
    __syncwarp(0xffff0f00u);
  }
  data[threadIdx.x] = 1;
}

// PLANTED BUG: a float4 view that starts one float past the allocation's
// 16-byte-aligned start (ex5's mistake of not skipping the head): every
// float4 access is 4 bytes past a 16-byte boundary, which faults on a GPU.
__global__ void copy_float4_misaligned(const float* in, float* out, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  auto in4 = reinterpret_cast<const float4*>(in + 1);
  auto out4 = reinterpret_cast<float4*>(out + 1);
  if (i < n4) {
    const float4 v = in4[i];  // the read first, as the GPU makes it
    out4[i] = v;
  }
}

// PLANTED BUG: thread 5 reads a double 4 bytes past an 8-byte boundary while
// the other threads wait at the barrier: the fault must stop the block, not
// leave the others waiting.
__global__ void misaligned_before_barrier(double* data) {
  unsigned t = threadIdx.x;
  auto bytes = reinterpret_cast<char*>(data);
  double v = t == 5 ? reinterpret_cast<double*>(bytes + 4)[0] : data[t];
  __syncthreads();
  data[t] = v + 1.0;
}

}  // namespace CUDALAB_BACKEND
}  // namespace emu_tests
