// The kernels whose memory traffic the emulator predicts and ncu measures on
// the GPU (docs/emulator.md, "Fidelity on the GPU"): plain CUDA, one source
// compiled by nvcc for emu_fidelity_gpu and, rewritten and instrumented, by
// the host compiler for `emu_bench --fidelity`. Each kernel shows one access
// pattern; the comment says what a warp request should cost.
#pragma once

#include <cstddef>

#include "cudalab/kernel.hpp"

namespace emu_fidelity {
inline namespace CUDALAB_BACKEND {

constexpr int kThreads = 1 << 20;  // threads of each 1-D launch
constexpr int kBlock = 256;
constexpr int kSide = 1024;  // the transposes' square matrix: kSide * kSide = kThreads
constexpr int kTile = 32;

// The device buffers every kernel reads or writes.
struct Buffers {
  float* in;   // 32 * kThreads floats (the stride-32 load reaches that far)
  float* out;  // kThreads floats
  __half* in_half;
  __half* out_half;  // kThreads each
  float* bins;       // 64 floats
};

// Loads: 32 consecutive floats, 128 bytes = 4 sectors per request.
__global__ void copy_coalesced(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

// Every other float: 256 bytes, 8 sectors per load request.
__global__ void load_stride2(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[2 * i];
}

// One float per 128-byte line: 32 sectors per load request.
__global__ void load_stride32(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[32 * i];
}

// All lanes read one float: 1 sector per load request.
__global__ void load_broadcast(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[0];
}

// 16 bytes per lane: 512 bytes, 16 sectors per request.
__global__ void copy_float4(const float4* in, float4* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

// 2 bytes per lane: 64 bytes, 2 sectors per request.
__global__ void copy_half(const __half* in, __half* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

// Atomics apart from loads and stores: a warp adds to 32 neighbouring bins,
// 4 sectors per atomic request (RED on the GPU: the old value is unused).
__global__ void histogram_atomic(float* bins, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[i % 64], 1.0f);
}

// The lecture's broadcast_sum mapping (thread i: row i % x, column i / x):
// neighbouring lanes write rows y floats apart, 32 sectors per store request,
// and all read one b element, 1 sector.
__global__ void lecture_broadcast_sum(float* a, const float* b, int x, int y, int size) {
  const int i = (blockIdx.x + blockIdx.y * gridDim.x) * blockDim.x + threadIdx.x;
  if (i >= size) return;
  const int k = i / x % y;
  a[(i % x) * y + k] += b[k];
}

// A kSide x kSide transpose through a 32 x 32 shared tile in blocks of
// 32 x 32 threads. Reading a column of the tile puts all 32 lanes in one bank:
// 32 wavefronts per shared load request.
__global__ void transpose_naive(const float* in, float* out) {
  __shared__ float tile[kTile][kTile];  // (32,32)
  const int x = blockIdx.x * kTile + threadIdx.x;
  const int y = blockIdx.y * kTile + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * kSide + x];
  __syncthreads();
  const int tx = blockIdx.y * kTile + threadIdx.x;
  const int ty = blockIdx.x * kTile + threadIdx.y;
  out[ty * kSide + tx] = tile[threadIdx.x][threadIdx.y];
}

// The same with one column of padding: a tile column spans 32 banks, 1
// wavefront per request.
__global__ void transpose_padded(const float* in, float* out) {
  __shared__ float tile[kTile][kTile + 1];  // (32,33)
  const int x = blockIdx.x * kTile + threadIdx.x;
  const int y = blockIdx.y * kTile + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * kSide + x];
  __syncthreads();
  const int tx = blockIdx.y * kTile + threadIdx.x;
  const int ty = blockIdx.x * kTile + threadIdx.y;
  out[ty * kSide + tx] = tile[threadIdx.x][threadIdx.y];
}

// A block sum in dynamic shared memory (blockDim.x floats): consecutive
// lanes read consecutive words, 1 wavefront per request.
__global__ void reduce_dynamic(const float* in, float* out, int n) {
  extern __shared__ float partial[];
  const int t = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + t;
  partial[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}

// A table in constant memory. The constant cache serves one address per
// transaction, so a warp's read costs as many as its lanes read distinct
// addresses (the emulator's constant_cache count).
__constant__ float kLookup[256];

// Every lane of a warp reads one element (which one depends on the block, so
// nvcc cannot fold it into the instruction): 1 address per request.
__global__ void constant_uniform(float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = kLookup[blockIdx.x % 256];
}

// Lanes read 4 elements between them: 4 addresses per request.
__global__ void constant_four(float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = kLookup[threadIdx.x % 4];
}

// Every lane its own element: 32 addresses per request, the worst case.
__global__ void constant_per_lane(float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = kLookup[threadIdx.x % 32];
}

// Runs each kernel once, in this order, calling `each(name, launch)` so that
// the caller can wrap each launch (the emulator records it; the GPU run only
// launches it, for ncu). Names are the kernels' own.
template <class Each>
void run_all(const Buffers& b, Each&& each) {
  const dim3 grid(kThreads / kBlock);
  const dim3 tiles(kSide / kTile, kSide / kTile);
  const dim3 tile_block(kTile, kTile);
  each("copy_coalesced", [&] { copy_coalesced<<<grid, kBlock>>>(b.in, b.out, kThreads); });
  each("load_stride2", [&] { load_stride2<<<grid, kBlock>>>(b.in, b.out, kThreads); });
  each("load_stride32", [&] { load_stride32<<<grid, kBlock>>>(b.in, b.out, kThreads); });
  each("load_broadcast", [&] { load_broadcast<<<grid, kBlock>>>(b.in, b.out, kThreads); });
  each("copy_float4", [&] {
    copy_float4<<<grid, kBlock>>>(reinterpret_cast<const float4*>(b.in),
                                  reinterpret_cast<float4*>(b.out), kThreads / 4);
  });
  each("copy_half", [&] { copy_half<<<grid, kBlock>>>(b.in_half, b.out_half, kThreads); });
  each("histogram_atomic", [&] { histogram_atomic<<<grid, kBlock>>>(b.bins, kThreads); });
  each("lecture_broadcast_sum",
       [&] { lecture_broadcast_sum<<<grid, kBlock>>>(b.out, b.in, kSide, kSide, kThreads); });
  each("transpose_naive", [&] { transpose_naive<<<tiles, tile_block>>>(b.in, b.out); });
  each("transpose_padded", [&] { transpose_padded<<<tiles, tile_block>>>(b.in, b.out); });
  each("reduce_dynamic",
       [&] { reduce_dynamic<<<grid, kBlock, kBlock * sizeof(float)>>>(b.in, b.out, kThreads); });
  each("constant_uniform", [&] { constant_uniform<<<grid, kBlock>>>(b.out, kThreads); });
  each("constant_four", [&] { constant_four<<<grid, kBlock>>>(b.out, kThreads); });
  each("constant_per_lane", [&] { constant_per_lane<<<grid, kBlock>>>(b.out, kThreads); });
}

}  // namespace CUDALAB_BACKEND
}  // namespace emu_fidelity
