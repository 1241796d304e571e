// The kernels of memcpy_async.hpp, one source for both backends (inside the
// inline namespace CUDALAB_BACKEND, so both builds link into one program):
// plain libcu++ code, as a course would write it.
#pragma once

#include <cooperative_groups.h>

#include <cuda/barrier>
#include <cuda/pipeline>
#include <utility>
#include <vector>

#include "cudalab/check.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/kernel.hpp"
#include "memcpy_async.hpp"

#if defined(__CUDACC__)
// A __shared__ cuda::barrier has a constructor that never runs (init() sets
// it up), as libcu++'s examples say.
#pragma nv_diag_suppress static_var_with_dynamic_init
#endif

namespace memcpy_async_tests {
inline namespace CUDALAB_BACKEND {

// Not in an anonymous namespace: reports name kernels through their symbols.
namespace device {

constexpr int kMaxTile = 256;     // floats
constexpr int kMaxThreads = 256;  // per block, for the pipeline's slots

using BlockBarrier = cuda::barrier<cuda::thread_scope_block>;

__global__ void tiled_sum_kernel(const float* in, float* partial, int n, int tile, CopyForm form,
                                 Planted bug) {
  __shared__ __align__(16) float staged[kMaxTile];
  __shared__ BlockBarrier bar;
  const auto block = cooperative_groups::this_thread_block();
  if (threadIdx.x == 0) {
    const int miscount = bug == Planted::count_too_small   ? -1
                         : bug == Planted::count_too_large ? 1
                                                           : 0;
    init(&bar, static_cast<int>(blockDim.x) + miscount);
  }
  __syncthreads();
  float sum = 0.0f;
  bool first_tile = true;
  for (int first = blockIdx.x * tile; first < n; first += gridDim.x * tile) {
    const int count = n - first < tile ? n - first : tile;
    const std::size_t bytes = sizeof(float) * static_cast<std::size_t>(count);
    if (form == CopyForm::whole_block) {
      cuda::memcpy_async(block, staged, in + first, bytes, bar);
    } else if (threadIdx.x == 0) {
      if (bug == Planted::broken_alignment) {
        cuda::memcpy_async(staged, in + first, cuda::aligned_size_t<16>(bytes), bar);
      } else {
        cuda::memcpy_async(staged, in + first, bytes, bar);
      }
    }
    float early = 0.0f;
    if (bug == Planted::read_before_wait) early = staged[threadIdx.x % count];
    if (first_tile) {
      BlockBarrier::arrival_token token = bar.arrive();
      bar.wait(std::move(token));
      first_tile = false;
    } else {
      bar.arrive_and_wait();
    }
    for (int i = threadIdx.x; i < count; i += blockDim.x) sum += staged[i] + early * 0.0f;
    bar.arrive_and_wait();  // every thread has read the tile before the next copy overwrites it
  }
  partial[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// Stage s holds every thread's element in flight in staged[s][threadIdx.x]:
// a thread's slots are its own, so its pipeline alone orders them.
template <int Stages>
__global__ void pipelined_scale_kernel(const float* in, float* out, int n, bool wait_prior,
                                       Planted bug) {
  __shared__ float staged[Stages][kMaxThreads];
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  const int stride = static_cast<int>(gridDim.x * blockDim.x);
  int fetch = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  // Every iteration commits one stage, empty past the end, so that the
  // stage to consume is always the oldest but Stages - 1.
  for (int s = 0; s < Stages - 1; ++s, fetch += stride) {
    pipe.producer_acquire();
    if (fetch < n) cuda::memcpy_async(&staged[s][threadIdx.x], in + fetch, sizeof(float), pipe);
    pipe.producer_commit();
  }
  int stage = 0;
  for (int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); i < n;
       i += stride, fetch += stride) {
    const int ahead = (stage + Stages - 1) % Stages;  // consumed in the previous iteration
    pipe.producer_acquire();
    if (fetch < n) {
      cuda::memcpy_async(&staged[ahead][threadIdx.x], in + fetch, sizeof(float), pipe);
    }
    pipe.producer_commit();
    float early = 0.0f;
    if (bug == Planted::read_before_wait) early = staged[stage][threadIdx.x];
    if (wait_prior) {
      cuda::pipeline_consumer_wait_prior<Stages - 1>(pipe);
    } else {
      pipe.consumer_wait();
    }
    out[i] = 2.0f * staged[stage][threadIdx.x] - 1.0f + early * 0.0f;
    pipe.consumer_release();
    stage = (stage + 1) % Stages;
  }
}

constexpr int kBlockStages = 2;
using BlockPipelineState = cuda::pipeline_shared_state<cuda::thread_scope_block, kBlockStages>;

// The block's k-th tile (blocks, tile) into stage k % kBlockStages; a tile
// past the end commits an empty stage.
__device__ void fetch_tile(cuda::pipeline<cuda::thread_scope_block>& pipe,
                           const cooperative_groups::thread_block& block,
                           float (&staged)[kBlockStages][kMaxTile], const float* in, int n,
                           int tile, int k) {
  const int first = (static_cast<int>(blockIdx.x) + k * static_cast<int>(gridDim.x)) * tile;
  pipe.producer_acquire();
  if (first < n) {
    const int count = n - first < tile ? n - first : tile;
    cuda::memcpy_async(block, staged[k % kBlockStages], in + first,
                       sizeof(float) * static_cast<std::size_t>(count), pipe);
  }
  pipe.producer_commit();
}

__global__ void block_pipeline_sum_kernel(const float* in, float* partial, int n, int tile) {
  __shared__ __align__(16) float staged[kBlockStages][kMaxTile];
  __shared__ BlockPipelineState state;
  const auto block = cooperative_groups::this_thread_block();
  cuda::pipeline<cuda::thread_scope_block> pipe = cuda::make_pipeline(block, &state);
  for (int k = 0; k < kBlockStages - 1; ++k) fetch_tile(pipe, block, staged, in, n, tile, k);
  float sum = 0.0f;
  for (int k = 0; (static_cast<int>(blockIdx.x) + k * static_cast<int>(gridDim.x)) * tile < n;
       ++k) {
    fetch_tile(pipe, block, staged, in, n, tile, k + kBlockStages - 1);
    const int first = (static_cast<int>(blockIdx.x) + k * static_cast<int>(gridDim.x)) * tile;
    const int count = n - first < tile ? n - first : tile;
    pipe.consumer_wait();
    for (int i = threadIdx.x; i < count; i += blockDim.x) sum += staged[k % kBlockStages][i];
    pipe.consumer_release();
  }
  partial[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

}  // namespace device

inline std::vector<float> tiled_sum(const std::vector<float>& in, int tile, unsigned blocks,
                                    unsigned threads, CopyForm form, Planted bug) {
  cudalab::DeviceBuffer<float> d_in(in), d_partial(std::size_t{blocks} * threads);
  device::tiled_sum_kernel<<<blocks, threads>>>(d_in.data(), d_partial.data(),
                                                static_cast<int>(in.size()), tile, form, bug);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  return d_partial.copy_to_host();
}

inline std::vector<float> pipelined_scale(const std::vector<float>& in, int stages, bool wait_prior,
                                          unsigned blocks, unsigned threads, Planted bug) {
  cudalab::DeviceBuffer<float> d_in(in), d_out(in.size());
  const int n = static_cast<int>(in.size());
  switch (stages) {
    case 2:
      device::pipelined_scale_kernel<2>
          <<<blocks, threads>>>(d_in.data(), d_out.data(), n, wait_prior, bug);
      break;
    case 3:
      device::pipelined_scale_kernel<3>
          <<<blocks, threads>>>(d_in.data(), d_out.data(), n, wait_prior, bug);
      break;
    case 4:
      device::pipelined_scale_kernel<4>
          <<<blocks, threads>>>(d_in.data(), d_out.data(), n, wait_prior, bug);
      break;
    default:
      throw std::invalid_argument("pipelined_scale: stages is 2, 3 or 4, not " +
                                  std::to_string(stages));
  }
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  return d_out.copy_to_host();
}

inline std::vector<float> block_pipeline_sum(const std::vector<float>& in, int tile,
                                             unsigned blocks, unsigned threads) {
  cudalab::DeviceBuffer<float> d_in(in), d_partial(std::size_t{blocks} * threads);
  device::block_pipeline_sum_kernel<<<blocks, threads>>>(d_in.data(), d_partial.data(),
                                                         static_cast<int>(in.size()), tile);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  return d_partial.copy_to_host();
}

inline const Kernels& kernels() {
  static const Kernels k{&tiled_sum, &pipelined_scale, &block_pipeline_sum};
  return k;
}

}  // namespace CUDALAB_BACKEND
}  // namespace memcpy_async_tests
