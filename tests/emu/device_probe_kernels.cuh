// The device probes' kernels and their launchers (device_probe_kernels.hpp),
// plain CUDA: included by device_probes_gpu.cu for nvcc and, rewritten and
// instrumented, by device_probe_kernels_emu.cpp for the emulator. No
// strings here (device_probe_kernels.hpp says why).
#pragma once

#include <cstdint>

#include "cudalab/device_time.hpp"
#include "cudalab/kernel.hpp"
#include "device_probe_kernels.hpp"

namespace device_probes {
inline namespace CUDALAB_BACKEND {

// Not in an anonymous namespace: reports name kernels through their
// exported symbols.
namespace device {

__device__ inline void spin_for(unsigned long long ns) {
  const std::uint64_t start = cudalab::globaltimer_ns();
  while (cudalab::globaltimer_ns() - start < ns) __nanosleep(1000);
}

// The producer: spins, then writes a[i] = value for i < n (one block).
__global__ void late_fill_kernel(float* a, int n, float value, unsigned long long spin_ns) {
  if (threadIdx.x == 0) spin_for(spin_ns);
  __syncthreads();
  const int i = threadIdx.x;
  if (i < n) a[i] = value;
}

// The consumer: to[i] = from[i] for i < n (one block).
__global__ void copy_kernel(const float* from, float* to, int n) {
  const int i = threadIdx.x;
  if (i < n) to[i] = from[i];
}

}  // namespace device

void launch_late_fill(float* a, int n, float value, unsigned long long spin_ns,
                      cudaStream_t stream) {
  device::late_fill_kernel<<<1, n, 0, stream>>>(a, n, value, spin_ns);
}

void launch_copy(const float* from, float* to, int n, cudaStream_t stream) {
  device::copy_kernel<<<1, n, 0, stream>>>(from, to, n);
}

}  // namespace CUDALAB_BACKEND
}  // namespace device_probes
