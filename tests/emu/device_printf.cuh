// The kernels of device_printf.hpp, one source for both backends (inside the
// inline namespace CUDALAB_BACKEND, so both builds link into one program).
#pragma once

#include <cstdio>

#include "cudalab/check.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/kernel.hpp"
#include "device_printf.hpp"

namespace device_printf {
inline namespace CUDALAB_BACKEND {

// Not in an anonymous namespace: reports name kernels through their symbols.
namespace device {

// The Programming Guide's example ("Formatted Output"), retyped.
__global__ void helloCUDA(float f) { printf("Hello thread %d, f=%f\n", threadIdx.x, f); }

__global__ void lines_kernel(int per_thread) {
  for (int line = 0; line < per_thread; ++line) {
    printf("block (%u,%u) thread (%u,%u) line %d\n", blockIdx.x, blockIdx.y, threadIdx.x,
           threadIdx.y, line);
  }
}

__global__ void conversions_kernel(int i, unsigned u, long long ll, double d, const char* s) {
  printf("i=%d u=%u ll=%lld x=%#x d=%.3f e=%e g=%g w=[%6.2f] l=[%-5d] s=%s c=%c %%\n", i, u, ll, u,
         d, d, d, d, i, s, 'A' + (i & 15));
}

__global__ void return_values_kernel(int* with_arguments, int* without) {
  *with_arguments = printf("%d %f %s\n", 1, 2.0, "three");
  *without = printf("no arguments\n");
}

__global__ void announce_kernel() { printf("device line\n"); }

}  // namespace device

inline void hello(float f, unsigned threads) {
  device::helloCUDA<<<1, threads>>>(f);
  CUDA_CHECK(cudaDeviceSynchronize());
}

inline void lines(dim3 grid, dim3 block, int per_thread) {
  device::lines_kernel<<<grid, block>>>(per_thread);
  CUDA_CHECK(cudaDeviceSynchronize());
}

inline void conversions(int i, unsigned u, long long ll, double d, const char* s) {
  // The string must be device memory on the GPU.
  std::size_t n = 0;
  while (s[n]) ++n;
  cudalab::DeviceBuffer<char> text(n + 1);
  CUDA_CHECK(cudaMemcpy(text.data(), s, n + 1, cudaMemcpyHostToDevice));
  device::conversions_kernel<<<1, 1>>>(i, u, ll, d, text.data());
  CUDA_CHECK(cudaDeviceSynchronize());
}

inline void return_values(int* with_arguments, int* without) {
  cudalab::DeviceBuffer<int> out(2);
  device::return_values_kernel<<<1, 1>>>(out.data(), out.data() + 1);
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemcpy(with_arguments, out.data(), sizeof(int), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(without, out.data() + 1, sizeof(int), cudaMemcpyDeviceToHost));
}

inline void host_and_device() {
  int value = 0;
  cudalab::DeviceBuffer<int> d(1);
  printf("host before launch\n");
  std::fflush(stdout);  // stdout is a file under the test: the device's lines follow it
  device::announce_kernel<<<1, 1>>>();
  printf("host after launch\n");
  std::fflush(stdout);  // stdout is a file under the test: the device's lines follow it
  CUDA_CHECK(cudaMemcpy(&value, d.data(), sizeof(int), cudaMemcpyDeviceToHost));
  printf("host after blocking copy\n");
  std::fflush(stdout);  // stdout is a file under the test: the device's lines follow it
  device::announce_kernel<<<1, 1>>>();
  CUDA_CHECK(cudaDeviceSynchronize());
  std::printf("host after synchronize\n");
  std::fflush(stdout);
}

inline void launch_only() { device::announce_kernel<<<1, 1>>>(); }

inline void synchronize() { CUDA_CHECK(cudaDeviceSynchronize()); }

inline FifoResult small_fifo(std::size_t fifo_bytes, dim3 grid, dim3 block, int per_thread) {
  FifoResult r;
  CUDA_CHECK(cudaDeviceReset());
  CUDA_CHECK(cudaDeviceGetLimit(&r.default_bytes, cudaLimitPrintfFifoSize));
  CUDA_CHECK(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, fifo_bytes));
  CUDA_CHECK(cudaDeviceGetLimit(&r.set_bytes, cudaLimitPrintfFifoSize));
  lines(grid, block, per_thread);
  r.set_after_launch = cudaDeviceSetLimit(cudaLimitPrintfFifoSize, fifo_bytes);
  (void)cudaGetLastError();
  CUDA_CHECK(cudaDeviceReset());  // the next test starts with the default FIFO
  return r;
}

inline const Kernels& kernels() {
  static const Kernels table{&hello,           &lines,       &conversions, &return_values,
                             &host_and_device, &launch_only, &synchronize, &small_fifo};
  return table;
}

}  // namespace CUDALAB_BACKEND
}  // namespace device_printf
