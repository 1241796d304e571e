// The kernels of mbarrier.hpp, one source for both backends (inside the
// inline namespace CUDALAB_BACKEND, so both builds link into one program).
#pragma once

#include <cstdint>
#include <vector>

#include "cudalab/check.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/kernel.hpp"
#include "cudalab/mbarrier.hpp"
#include "mbarrier.hpp"

namespace mbarrier_tests {
inline namespace CUDALAB_BACKEND {

// Not in an anonymous namespace: reports name kernels through their symbols.
namespace device {

constexpr int kStages = 2;
constexpr int kMaxChunk = 256;  // floats per stage

// Stage s of the k-th chunk this block handles is k % 2; its barriers'
// phase k / 2 belongs to that chunk, so the parity to wait on is (k / 2) & 1.
__global__ void double_buffered_kernel(const float* in, float* out, int n, int chunk, Planted bug) {
  __shared__ __align__(16) float stage[kStages][kMaxChunk];
  __shared__ std::uint64_t full[kStages];
  __shared__ std::uint64_t empty[kStages];
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      cudalab::mbarrier_init(&full[s], 1);  // the producer's arrive_expect_tx
      cudalab::mbarrier_init(&empty[s], blockDim.x);
    }
    cudalab::fence_mbarrier_init();
  }
  __syncthreads();
  const int chunks = (n + chunk - 1) / chunk;
  int k = 0;
  for (int c = blockIdx.x; c < chunks; c += gridDim.x, ++k) {
    const int s = k % kStages;
    const unsigned parity = (k / kStages) & 1u;
    const int first = c * chunk;
    const int count = n - first < chunk ? n - first : chunk;
    if (threadIdx.x == 0) {
      // The stage's previous chunk must be consumed before it is overwritten.
      if (k >= kStages) cudalab::mbarrier_wait_parity(&empty[s], parity ^ 1u);
      const unsigned bytes = static_cast<unsigned>(count * sizeof(float));
      cudalab::mbarrier_arrive_expect_tx(&full[s],
                                         bug == Planted::wrong_expect_tx ? bytes + 16 : bytes);
      cudalab::bulk_copy_to_shared(stage[s], in + first, bytes, &full[s]);
    }
    float early = 0.0f;
    if (bug == Planted::read_before_wait) early = stage[s][threadIdx.x % count];
    cudalab::mbarrier_wait_parity(&full[s], bug == Planted::wrong_parity ? parity ^ 1u : parity);
    for (int i = threadIdx.x; i < count; i += blockDim.x) {
      out[first + i] = 2.0f * stage[s][i] + 1.0f + early * 0.0f;
    }
    if (!(bug == Planted::missing_arrive && threadIdx.x == blockDim.x - 1)) {
      cudalab::mbarrier_arrive(&empty[s]);
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      cudalab::mbarrier_inval(&full[s]);
      cudalab::mbarrier_inval(&empty[s]);
    }
  }
}

__global__ void phases_kernel(int* out, int rounds) {
  __shared__ std::uint64_t bar;
  if (threadIdx.x == 0) {
    cudalab::mbarrier_init(&bar, blockDim.x);
    cudalab::fence_mbarrier_init();
  }
  __syncthreads();
  const bool last = threadIdx.x == blockDim.x - 1;
  int seen = 0;
  for (int r = 0; r < rounds; ++r) {
    if (last) {
      if (r == 0) cudalab::mbarrier_arrive_drop(&bar);
      continue;  // dropped out: later phases complete without it
    }
    cudalab::mbarrier_arrive(&bar);
    cudalab::mbarrier_wait_parity(&bar, r & 1);
    // The phase is still complete when tested again: the next one needs this thread.
    seen += cudalab::mbarrier_test_wait_parity(&bar, r & 1) ? 1 : 0;
  }
  out[threadIdx.x] = seen;
}

}  // namespace device

inline std::vector<float> double_buffered(const std::vector<float>& in, int chunk, unsigned blocks,
                                          unsigned threads, Planted bug) {
  cudalab::DeviceBuffer<float> d_in(in), d_out(in.size());
  device::double_buffered_kernel<<<blocks, threads>>>(d_in.data(), d_out.data(),
                                                      static_cast<int>(in.size()), chunk, bug);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  return d_out.copy_to_host();
}

inline std::vector<int> phases(unsigned threads, int rounds) {
  cudalab::DeviceBuffer<int> d_out(threads);
  device::phases_kernel<<<1, threads>>>(d_out.data(), rounds);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  return d_out.copy_to_host();
}

inline const Kernels& kernels() {
  static const Kernels k{&double_buffered, &phases};
  return k;
}

}  // namespace CUDALAB_BACKEND
}  // namespace mbarrier_tests
