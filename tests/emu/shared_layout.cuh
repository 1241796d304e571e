// The kernels of shared_layout.hpp, one source for both backends (inside the
// inline namespace CUDALAB_BACKEND, so both builds link into one program).
// Thread 0 writes the offsets of every declaration; every thread touches
// them so that nothing is optimised away.
#pragma once

#include <cstddef>
#include <vector>

#include "cudalab/check.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/kernel.hpp"
#include "shared_layout.hpp"

namespace shared_layout {
inline namespace CUDALAB_BACKEND {

// Not in an anonymous namespace: reports name kernels through their symbols.
namespace device {

template <int N>
__global__ void one_static_kernel(unsigned long long* out) {
  __shared__ char s[N];
  extern __shared__ float dynamic_part[];
  s[threadIdx.x % N] = 1;
  dynamic_part[threadIdx.x] = 2.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    out[0] = __cvta_generic_to_shared(s);
    out[1] = __cvta_generic_to_shared(dynamic_part);
  }
}

__global__ void three_static_kernel(unsigned long long* out) {
  __shared__ char a[3];
  __shared__ float b[5];
  __shared__ double c[1];
  extern __shared__ float dynamic_part[];
  if (threadIdx.x < 3) a[threadIdx.x] = 1;
  if (threadIdx.x < 5) b[threadIdx.x] = 2.0f;
  if (threadIdx.x == 0) c[0] = 3.0;
  dynamic_part[threadIdx.x] = 4.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    out[0] = __cvta_generic_to_shared(a);
    out[1] = __cvta_generic_to_shared(b);
    out[2] = __cvta_generic_to_shared(c);
    out[3] = __cvta_generic_to_shared(dynamic_part);
  }
}

__global__ void dynamic_only_kernel(unsigned long long* out) {
  extern __shared__ float dynamic_part[];
  dynamic_part[threadIdx.x] = 1.0f;
  if (threadIdx.x == 0) out[0] = __cvta_generic_to_shared(dynamic_part);
}

}  // namespace device

inline std::vector<std::size_t> offsets(Layout layout) {
  constexpr unsigned kThreads = 32;
  constexpr std::size_t kDynamicBytes = kThreads * sizeof(float);
  cudalab::DeviceBuffer<unsigned long long> out(4);
  out.fill_bytes(0);
  std::size_t count = 2;
  switch (layout) {
    case Layout::one_char:
      device::one_static_kernel<1><<<1, kThreads, kDynamicBytes>>>(out.data());
      break;
    case Layout::seventeen_chars:
      device::one_static_kernel<17><<<1, kThreads, kDynamicBytes>>>(out.data());
      break;
    case Layout::one_hundred_twenty_nine_chars:
      device::one_static_kernel<129><<<1, kThreads, kDynamicBytes>>>(out.data());
      break;
    case Layout::char_float_double:
      device::three_static_kernel<<<1, kThreads, kDynamicBytes>>>(out.data());
      count = 4;
      break;
    case Layout::dynamic_only:
      device::dynamic_only_kernel<<<1, kThreads, kDynamicBytes>>>(out.data());
      count = 1;
      break;
  }
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<unsigned long long> all = out.copy_to_host();
  return std::vector<std::size_t>(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(count));
}

}  // namespace CUDALAB_BACKEND
}  // namespace shared_layout
