// Tensor-core GEMMs as a student writes them: plain CUDA, one source for the
// GPU (nvcc, the real <mma.h> and mma.sync) and the emulator (the rewritten,
// instrumented copy; cudalab's nvcuda::wmma and warp-wide mma). Each warp
// computes one tile of C = A·B (row-major, fp32 C, no C input).
// The emulator test reads this file to check that a report names the line
// of the half-warp mma (kernel_file is its path).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include <cstdint>
#include <vector>

#include "cudalab/async_copy.hpp"
#include "cudalab/check.hpp"
#include "cudalab/kernel.hpp"
#include "cudalab/ldmatrix.hpp"
#include "cudalab/mma.hpp"
#include "tc_runners.hpp"

namespace tensor_cores {
namespace CUDALAB_BACKEND {

using namespace nvcuda;

// ---------------------------------------------------------------- wmma

// TF32: A is M x K, B is K x N, both fp32, rounded to TF32 (ties away) as
// the CUDA samples do after loading each fragment.
__global__ void wmma_tf32_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int tile_row = warp / (N / 16), tile_col = warp % (N / 16);
  if (tile_row * 16 >= M) return;
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < K; k += 8) {
    wmma::load_matrix_sync(a, A + tile_row * 16 * K + k, K);
    wmma::load_matrix_sync(b, B + k * N + tile_col * 16, N);
    for (int i = 0; i < a.num_elements; ++i) a.x[i] = wmma::__float_to_tf32(a.x[i]);
    for (int i = 0; i < b.num_elements; ++i) b.x[i] = wmma::__float_to_tf32(b.x[i]);
    wmma::mma_sync(acc, a, b, acc);
  }
  wmma::store_matrix_sync(C + tile_row * 16 * N + tile_col * 16, acc, N, wmma::mem_row_major);
}

// fp16: A row-major, B column-major (B^T row-major, as cuBLAS users store it).
__global__ void wmma_f16_gemm(const __half* A, const __half* B, float* C, int M, int N, int K) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int tile_row = warp / (N / 16), tile_col = warp % (N / 16);
  if (tile_row * 16 >= M) return;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(a, A + tile_row * 16 * K + k, K);
    wmma::load_matrix_sync(b, B + tile_col * 16 * K + k, K);
    wmma::mma_sync(acc, a, b, acc);
  }
  wmma::store_matrix_sync(C + tile_row * 16 * N + tile_col * 16, acc, N, wmma::mem_row_major);
}

// One warp, one 16 x 16 x 16 tile with a C from memory, so that C too can
// carry infinities and NaNs: D = A·B + C, A row-major, B column-major.
template <class T>
__global__ void wmma_tile_with_c(const T* A, const T* B, const float* C, float* D) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::load_matrix_sync(a, A, 16);
  wmma::load_matrix_sync(b, B, 16);
  wmma::load_matrix_sync(acc, C, 16, wmma::mem_row_major);
  wmma::mma_sync(acc, a, b, acc);
  wmma::store_matrix_sync(D, acc, 16, wmma::mem_row_major);
}

// ---------------------------------------------------------------- mma.sync

__device__ inline std::uint32_t pack_halves(__half low, __half high) {
  return static_cast<std::uint32_t>(static_cast<__half_raw>(low).x) |
         static_cast<std::uint32_t>(static_cast<__half_raw>(high).x) << 16;
}

// fp16 mma.sync.m16n8k16, fragments loaded straight from global memory by
// the PTX ISA's layout: g = lane / 4, t = lane % 4. SwapRegisters is the
// bug of a student who mixed up a[1] and a[2] (rows g+8 and columns 2t+8).
template <bool SwapRegisters>
__global__ void mma_f16_gemm(const __half* A, const __half* B, float* C, int M, int N, int K) {
  const int lane = threadIdx.x % 32;
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int tile_row = warp / (N / 8), tile_col = warp % (N / 8);
  if (tile_row * 16 >= M) return;
  const int g = lane / 4, t = lane % 4;
  const __half* a_tile = A + tile_row * 16 * K;
  const __half* b_tile = B + tile_col * 8;
  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int k = 0; k < K; k += 16) {
    std::uint32_t a[4], b[2];
    a[0] = pack_halves(a_tile[g * K + k + 2 * t], a_tile[g * K + k + 2 * t + 1]);
    a[1] = pack_halves(a_tile[(g + 8) * K + k + 2 * t], a_tile[(g + 8) * K + k + 2 * t + 1]);
    a[2] = pack_halves(a_tile[g * K + k + 2 * t + 8], a_tile[g * K + k + 2 * t + 9]);
    a[3] = pack_halves(a_tile[(g + 8) * K + k + 2 * t + 8], a_tile[(g + 8) * K + k + 2 * t + 9]);
    if (SwapRegisters) {
      const std::uint32_t r = a[1];
      a[1] = a[2];
      a[2] = r;
    }
    b[0] = pack_halves(b_tile[(k + 2 * t) * N + g], b_tile[(k + 2 * t + 1) * N + g]);
    b[1] = pack_halves(b_tile[(k + 2 * t + 8) * N + g], b_tile[(k + 2 * t + 9) * N + g]);
    cudalab::mma_m16n8k16_f16(acc, a, b, acc);
  }
  float* c_tile = C + tile_row * 16 * N + tile_col * 8;
  c_tile[g * N + 2 * t] = acc[0];
  c_tile[g * N + 2 * t + 1] = acc[1];
  c_tile[(g + 8) * N + 2 * t] = acc[2];
  c_tile[(g + 8) * N + 2 * t + 1] = acc[3];
}

// The bug: only the lower half of the warp reaches the mma.
__global__ void mma_f16_half_warp(const std::uint32_t* fragments, float* D) {
  const int lane = threadIdx.x % 32;
  std::uint32_t a[4] = {fragments[0], fragments[1], fragments[2], fragments[3]};
  std::uint32_t b[2] = {fragments[4], fragments[5]};
  float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  if (lane < 16) {
    cudalab::mma_m16n8k16_f16(d, a, b, d);
  }
  for (int i = 0; i < 4; ++i) D[4 * threadIdx.x + i] = d[i];
}

// One warp, one instruction of cudalab/mma.hpp: lane l passes
// registers[6l .. 6l + 5] as a[0..3], b[0..1], with c = 0; D gets each
// lane's d[0..3]. tf32: mma_m16n8k8_tf32, else mma_m16n8k16_bf16.
__global__ void mma_one_instruction(const std::uint32_t* registers, bool tf32, float* D) {
  const int lane = threadIdx.x % 32;
  const std::uint32_t* mine = registers + 6 * lane;
  const std::uint32_t a[4] = {mine[0], mine[1], mine[2], mine[3]};
  const std::uint32_t b[2] = {mine[4], mine[5]};
  float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  if (tf32) {
    cudalab::mma_m16n8k8_tf32(d, a, b, d);
  } else {
    cudalab::mma_m16n8k16_bf16(d, a, b, d);
  }
  for (int i = 0; i < 4; ++i) D[4 * lane + i] = d[i];
}

// ---------------------------------------------------------------- ldmatrix, cp.async

// Rows of the shared 16 x 16 tile below: 24 values (48 bytes), so that the
// 8 rows one ldmatrix phase reads lie in 8 different 16-byte bank groups.
constexpr int ldmatrix_stride = 24;

// One warp stages `tile` (16 x 16 16-bit values, row-major) in shared memory
// and loads it four ways; lane l writes out[12 l ..] (see tc_runners.hpp).
__global__ void ldmatrix_four_ways(const std::uint16_t* tile, std::uint32_t* out) {
  __shared__ __align__(16) std::uint16_t staged[16][ldmatrix_stride];
  const int lane = threadIdx.x % 32;
  for (int i = lane; i < 16 * 16; i += 32) staged[i / 16][i % 16] = tile[i];
  __syncthreads();
  std::uint32_t a[4], x2[2], b_pair[4], b[2];
  cudalab::ldmatrix_x4(a, &staged[lane % 16][8 * (lane / 16)]);
  cudalab::ldmatrix_x2(x2, &staged[lane % 16][0]);
  cudalab::ldmatrix_x4_trans(b_pair, &staged[lane % 8 + 8 * (lane / 8 % 2)][8 * (lane / 16)]);
  cudalab::ldmatrix_x2_trans(b, &staged[lane % 16][8]);
  std::uint32_t* mine = out + 12 * lane;
  for (int i = 0; i < 4; ++i) mine[i] = a[i];
  for (int i = 0; i < 2; ++i) mine[4 + i] = x2[i];
  for (int i = 0; i < 4; ++i) mine[6 + i] = b_pair[i];
  for (int i = 0; i < 2; ++i) mine[10 + i] = b[i];
}

// The bug: only the lower half of the warp loads the wmma fragment.
__global__ void wmma_load_half_warp(const float* tile, float* out) {
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  const int lane = threadIdx.x % 32;
  if (lane < 16) {
    wmma::load_matrix_sync(acc, tile, 16, wmma::mem_row_major);
  }
  for (int i = 0; i < acc.num_elements; ++i) out[acc.num_elements * lane + i] = acc.x[i];
}

// The bug: only the lower half of the warp reaches the ldmatrix.
__global__ void ldmatrix_half_warp(std::uint32_t* out) {
  __shared__ __align__(16) std::uint16_t staged[32][8];
  const int lane = threadIdx.x % 32;
  for (int i = 0; i < 8; ++i) staged[lane][i] = static_cast<std::uint16_t>(8 * lane + i);
  __syncthreads();
  std::uint32_t r[4] = {0, 0, 0, 0};
  if (lane < 16) {
    cudalab::ldmatrix_x4(r, &staged[lane][0]);
  }
  for (int i = 0; i < 4; ++i) out[4 * lane + i] = r[i];
}

// Chunk c of 16 bytes goes from `source` to shared memory with cp.async,
// copying only its first c % 17 bytes (the rest zero-filled; chunk 16 whole,
// through cp_async_16), in two commit groups; then back out to `out`.
constexpr int copied_chunks = 64;
__global__ void cp_async_chunks(const uint4* source, uint4* out) {
  __shared__ uint4 staged[copied_chunks];
  const int c = threadIdx.x;
  if (c < copied_chunks / 2) {
    const int bytes = c % 17;
    if (bytes == 16) {
      cudalab::cp_async_16(&staged[c], &source[c]);
    } else {
      cudalab::cp_async_16_zfill(&staged[c], &source[c], bytes);
    }
  }
  cudalab::cp_async_commit();
  if (c >= copied_chunks / 2 && c < copied_chunks) {
    cudalab::cp_async_16_zfill(&staged[c], &source[c], c % 17);
  }
  cudalab::cp_async_commit();
  cudalab::cp_async_wait<1>();  // the first group is complete
  cudalab::cp_async_wait_all();
  __syncthreads();
  if (c < copied_chunks) out[c] = staged[(c + 1) % copied_chunks];  // another thread's copy
}

// ---------------------------------------------------------------- host side

const char* const kernel_file = __FILE__;

namespace {

template <class Device, class Host>
Device* to_device(const std::vector<Host>& host) {
  static_assert(sizeof(Device) == sizeof(Host));
  Device* device = nullptr;
  CUDA_CHECK(cudaMalloc(&device, host.size() * sizeof(Host)));
  CUDA_CHECK(cudaMemcpy(device, host.data(), host.size() * sizeof(Host), cudaMemcpyHostToDevice));
  return device;
}

std::vector<float> to_host(const float* device, std::size_t n) {
  std::vector<float> host(n);
  CUDA_CHECK(cudaMemcpy(host.data(), device, n * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

// One warp per tile of 16 x tile_n, four warps per block.
template <class Device, class Host>
Gemm run_gemm(void (*kernel)(const Device*, const Device*, float*, int, int, int),
              const std::vector<Host>& a, const std::vector<Host>& b, int m, int n, int k,
              int tile_n) {
  const Device* d_a = to_device<Device>(a);
  const Device* d_b = to_device<Device>(b);
  float* d_c = nullptr;
  const std::size_t c_size = static_cast<std::size_t>(m) * n;
  CUDA_CHECK(cudaMalloc(&d_c, c_size * sizeof(float)));
  const int warps = (m / 16) * (n / tile_n);
  const int warps_per_block = 4;
  kernel<<<(warps + warps_per_block - 1) / warps_per_block, 32 * warps_per_block>>>(d_a, d_b, d_c,
                                                                                    m, n, k);
  Gemm result;
  result.error = cudaDeviceSynchronize();
  result.c = to_host(d_c, c_size);
  CUDA_CHECK(cudaFree(const_cast<Device*>(d_a)));
  CUDA_CHECK(cudaFree(const_cast<Device*>(d_b)));
  CUDA_CHECK(cudaFree(d_c));
  return result;
}

}  // namespace

Gemm wmma_tf32(const std::vector<float>& a, const std::vector<float>& b, int m, int n, int k) {
  return run_gemm<float>(wmma_tf32_gemm, a, b, m, n, k, 16);
}

Gemm wmma_f16(const std::vector<std::uint16_t>& a, const std::vector<std::uint16_t>& b_col_major,
              int m, int n, int k) {
  return run_gemm<__half>(wmma_f16_gemm, a, b_col_major, m, n, k, 16);
}

Gemm mma_f16(const std::vector<std::uint16_t>& a, const std::vector<std::uint16_t>& b, int m, int n,
             int k, bool swapped_registers) {
  return swapped_registers ? run_gemm<__half>(mma_f16_gemm<true>, a, b, m, n, k, 8)
                           : run_gemm<__half>(mma_f16_gemm<false>, a, b, m, n, k, 8);
}

Gemm wmma_tile(const std::vector<std::uint16_t>& a, const std::vector<std::uint16_t>& b_col_major,
               const std::vector<float>& c, bool bf16) {
  const std::uint16_t* d_a = to_device<std::uint16_t>(a);
  const std::uint16_t* d_b = to_device<std::uint16_t>(b_col_major);
  const float* d_c = to_device<float>(c);
  float* d_d = nullptr;
  CUDA_CHECK(cudaMalloc(&d_d, 256 * sizeof(float)));
  if (bf16) {
    wmma_tile_with_c<<<1, 32>>>(reinterpret_cast<const __nv_bfloat16*>(d_a),
                                reinterpret_cast<const __nv_bfloat16*>(d_b), d_c, d_d);
  } else {
    wmma_tile_with_c<<<1, 32>>>(reinterpret_cast<const __half*>(d_a),
                                reinterpret_cast<const __half*>(d_b), d_c, d_d);
  }
  Gemm result;
  result.error = cudaDeviceSynchronize();
  result.c = to_host(d_d, 256);
  CUDA_CHECK(cudaFree(const_cast<std::uint16_t*>(d_a)));
  CUDA_CHECK(cudaFree(const_cast<std::uint16_t*>(d_b)));
  CUDA_CHECK(cudaFree(const_cast<float*>(d_c)));
  CUDA_CHECK(cudaFree(d_d));
  return result;
}

Gemm mma_one(const std::vector<std::uint32_t>& registers, bool tf32) {
  const std::uint32_t* d_registers = to_device<std::uint32_t>(registers);
  float* d_out = nullptr;
  CUDA_CHECK(cudaMalloc(&d_out, 32 * 4 * sizeof(float)));
  mma_one_instruction<<<1, 32>>>(d_registers, tf32, d_out);
  Gemm result;
  result.error = cudaDeviceSynchronize();
  result.c = to_host(d_out, 32 * 4);
  CUDA_CHECK(cudaFree(const_cast<std::uint32_t*>(d_registers)));
  CUDA_CHECK(cudaFree(d_out));
  return result;
}

Gemm mma_f16_from_half_warp(const std::vector<std::uint32_t>& fragments) {
  const std::uint32_t* d_fragments = to_device<std::uint32_t>(fragments);
  float* d_d = nullptr;
  CUDA_CHECK(cudaMalloc(&d_d, 32 * 4 * sizeof(float)));
  mma_f16_half_warp<<<1, 32>>>(d_fragments, d_d);
  Gemm result;
  result.error = cudaDeviceSynchronize();
  result.c = to_host(d_d, 32 * 4);
  CUDA_CHECK(cudaFree(const_cast<std::uint32_t*>(d_fragments)));
  CUDA_CHECK(cudaFree(d_d));
  return result;
}

Registers ldmatrix_tile(const std::vector<std::uint16_t>& tile) {
  const std::uint16_t* d_tile = to_device<std::uint16_t>(tile);
  std::uint32_t* d_out = nullptr;
  CUDA_CHECK(cudaMalloc(&d_out, 32 * 12 * sizeof(std::uint32_t)));
  ldmatrix_four_ways<<<1, 32>>>(d_tile, d_out);
  Registers result;
  result.error = cudaDeviceSynchronize();
  result.r.resize(32 * 12);
  CUDA_CHECK(
      cudaMemcpy(result.r.data(), d_out, 32 * 12 * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(const_cast<std::uint16_t*>(d_tile)));
  CUDA_CHECK(cudaFree(d_out));
  return result;
}

Gemm wmma_load_from_half_warp() {
  const float* d_tile = to_device<float>(std::vector<float>(16 * 16, 1.0f));
  float* d_out = nullptr;
  CUDA_CHECK(cudaMalloc(&d_out, 32 * 8 * sizeof(float)));
  wmma_load_half_warp<<<1, 32>>>(d_tile, d_out);
  Gemm result;
  result.error = cudaDeviceSynchronize();
  result.c = to_host(d_out, 32 * 8);
  CUDA_CHECK(cudaFree(const_cast<float*>(d_tile)));
  CUDA_CHECK(cudaFree(d_out));
  return result;
}

Registers ldmatrix_from_half_warp() {
  std::uint32_t* d_out = nullptr;
  CUDA_CHECK(cudaMalloc(&d_out, 32 * 4 * sizeof(std::uint32_t)));
  ldmatrix_half_warp<<<1, 32>>>(d_out);
  Registers result;
  result.error = cudaDeviceSynchronize();
  result.r.resize(32 * 4);
  CUDA_CHECK(
      cudaMemcpy(result.r.data(), d_out, 32 * 4 * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d_out));
  return result;
}

Registers cp_async_copy(const std::vector<std::uint32_t>& source) {
  const std::uint32_t* d_source = to_device<std::uint32_t>(source);
  std::uint32_t* d_out = nullptr;
  CUDA_CHECK(cudaMalloc(&d_out, source.size() * sizeof(std::uint32_t)));
  cp_async_chunks<<<1, 96>>>(reinterpret_cast<const uint4*>(d_source),
                             reinterpret_cast<uint4*>(d_out));
  Registers result;
  result.error = cudaDeviceSynchronize();
  result.r.resize(source.size());
  CUDA_CHECK(cudaMemcpy(result.r.data(), d_out, source.size() * sizeof(std::uint32_t),
                        cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(const_cast<std::uint32_t*>(d_source)));
  CUDA_CHECK(cudaFree(d_out));
  return result;
}

}  // namespace CUDALAB_BACKEND
}  // namespace tensor_cores
