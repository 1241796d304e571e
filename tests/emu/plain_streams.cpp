// Plain-CUDA kernels launched on streams (the fourth chevron argument); the
// test builds the rewritten, instrumented copy, so the race checker sees
// every byte they touch.
#include "plain_streams.hpp"

#include "cudalab/device_time.hpp"
#include "cudalab/kernel.hpp"

namespace plain_streams {

// Not in an anonymous namespace: reports name kernels through their
// exported symbols.
namespace device {

__global__ void fill_kernel(float* a, int n, float value) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = value;
}

__global__ void sum_kernel(const float* a, int n, float* out) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  float total = 0.0f;
  for (int i = 0; i < n; ++i) total += a[i];
  *out = total;
}

__global__ void spin_kernel(std::uint64_t ns) {
  const std::uint64_t start = cudalab::globaltimer_ns();
  while (cudalab::globaltimer_ns() - start < ns) __nanosleep(1000);
}

__global__ void timer_spin_kernel(std::uint64_t ns) {
  const std::uint64_t start = cudalab::globaltimer_ns();
  while (cudalab::globaltimer_ns() - start < ns) {
  }
}

__global__ void sleep_kernel(unsigned ns) { __nanosleep(ns); }

}  // namespace device

void fill(float* a, int n, float value, cudaStream_t stream) {
  device::fill_kernel<<<(n + 255) / 256, 256, 0, stream>>>(a, n, value);
}

void sum(const float* a, int n, float* out, cudaStream_t stream) {
  device::sum_kernel<<<1, 32, 0, stream>>>(a, n, out);
}

void spin(std::uint64_t ns, cudaStream_t stream) { device::spin_kernel<<<1, 1, 0, stream>>>(ns); }

void spin_on_the_timer_alone(std::uint64_t ns, cudaStream_t stream) {
  device::timer_spin_kernel<<<1, 1, 0, stream>>>(ns);
}

void sleep(unsigned ns, cudaStream_t stream) { device::sleep_kernel<<<1, 1, 0, stream>>>(ns); }

}  // namespace plain_streams
