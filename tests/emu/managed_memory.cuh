// The kernels and host code of managed_memory.hpp, one source for both backends.
#pragma once

#include <cstdio>
#include <vector>

#include "cudalab/check.hpp"
#include "cudalab/kernel.hpp"
#include "managed_memory.hpp"

namespace managed_memory {
inline namespace CUDALAB_BACKEND {

namespace device {

__global__ void triple_plus_one_kernel(const int* x, int* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 3 * x[i] + 1;
}

// The Programming Guide's example ("Unified Memory"), retyped.
__global__ void AplusB(int* ret, int a, int b) { ret[threadIdx.x] = a + b + threadIdx.x; }

}  // namespace device

inline std::vector<int> triple_plus_one(const std::vector<int>& x, unsigned block, unsigned flags) {
  const int n = static_cast<int>(x.size());
  int *mx = nullptr, *my = nullptr;
  CUDA_CHECK(cudaMallocManaged(&mx, n * sizeof(int), flags));
  CUDA_CHECK(cudaMallocManaged(&my, n * sizeof(int), flags));
  for (int i = 0; i < n; ++i) mx[i] = x[i];
  device::triple_plus_one_kernel<<<(n + block - 1) / block, block>>>(mx, my, n);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<int> y(my, my + n);
  CUDA_CHECK(cudaFree(mx));
  CUDA_CHECK(cudaFree(my));
  return y;
}

inline std::vector<int> with_prefetch(const std::vector<int>& x, unsigned block) {
  const int n = static_cast<int>(x.size());
  const std::size_t bytes = n * sizeof(int);
  int *mx = nullptr, *my = nullptr;
  CUDA_CHECK(cudaMallocManaged(&mx, bytes));
  CUDA_CHECK(cudaMallocManaged(&my, bytes));
  for (int i = 0; i < n; ++i) mx[i] = x[i];
  cudaStream_t s = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaMemLocation gpu{};
  gpu.type = cudaMemLocationTypeDevice;
  gpu.id = 0;
  cudaMemLocation host{};
  host.type = cudaMemLocationTypeHost;
  CUDA_CHECK(cudaMemAdvise(mx, bytes, cudaMemAdviseSetReadMostly, gpu));
  CUDA_CHECK(cudaMemAdvise(my, bytes, cudaMemAdviseSetPreferredLocation, gpu));
  CUDA_CHECK(cudaMemAdvise(my, bytes, cudaMemAdviseSetAccessedBy, host));
  CUDA_CHECK(cudaMemPrefetchAsync(mx, bytes, gpu, 0, s));
  device::triple_plus_one_kernel<<<(n + block - 1) / block, block, 0, s>>>(mx, my, n);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaMemPrefetchAsync(my, bytes, host, 0, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  std::vector<int> y(my, my + n);
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFree(mx));
  CUDA_CHECK(cudaFree(my));
  return y;
}

inline Attributes attributes() {
  Attributes a;
  int* p = nullptr;
  CUDA_CHECK(cudaMallocManaged(&p, 100 * sizeof(int)));
  cudaPointerAttributes attr{};
  a.error = cudaPointerGetAttributes(&attr, p + 7);
  a.type = attr.type;
  a.device = attr.device;
  a.device_is_host_pointer = attr.devicePointer == p + 7 && attr.hostPointer == p + 7;
  CUDA_CHECK(cudaDeviceGetAttribute(&a.managed_memory, cudaDevAttrManagedMemory, 0));
  CUDA_CHECK(
      cudaDeviceGetAttribute(&a.concurrent_managed_access, cudaDevAttrConcurrentManagedAccess, 0));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  a.prop_managed = prop.managedMemory;
  a.prop_concurrent = prop.concurrentManagedAccess;
  CUDA_CHECK(cudaFree(p));
  return a;
}

inline cudaError_t malloc_error(std::size_t bytes, unsigned flags) {
  void* p = nullptr;
  const cudaError_t e = cudaMallocManaged(&p, bytes, flags);
  (void)cudaGetLastError();
  if (e == cudaSuccess) CUDA_CHECK(cudaFree(p));
  return e;
}

inline std::vector<cudaError_t> bad_calls() {
  int* m = nullptr;
  int* d = nullptr;
  CUDA_CHECK(cudaMallocManaged(&m, 64 * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d, 64 * sizeof(int)));
  cudaMemLocation gpu{};
  gpu.type = cudaMemLocationTypeDevice;
  gpu.id = 0;
  cudaMemLocation nowhere = gpu;
  nowhere.id = 99;
  std::vector<cudaError_t> e;
  e.push_back(cudaMemPrefetchAsync(m, 64 * sizeof(int), gpu, 1, 0));
  e.push_back(cudaMemPrefetchAsync(d, 64 * sizeof(int), gpu, 0, 0));
  e.push_back(cudaMemPrefetchAsync(m, 64 * sizeof(int), nowhere, 0, 0));
  e.push_back(cudaMemAdvise(m, 64 * sizeof(int), static_cast<cudaMemoryAdvise>(99), gpu));
  e.push_back(cudaMemAdvise(m, 64 * sizeof(int), cudaMemAdviseSetPreferredLocation, nowhere));
  (void)cudaGetLastError();
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaFree(m));
  CUDA_CHECK(cudaFree(d));
  return e;
}

inline void programming_guide() {
  int* ret;
  cudaMallocManaged(&ret, 1000 * sizeof(int));
  device::AplusB<<<1, 1000>>>(ret, 10, 100);
  cudaDeviceSynchronize();
  for (int i = 0; i < 1000; i++) printf("%d: A+B = %d\n", i, ret[i]);
  cudaFree(ret);
  std::fflush(stdout);
}

inline const Kernels& kernels() {
  static const Kernels table{&triple_plus_one, &with_prefetch, &attributes,
                             &malloc_error,    &bad_calls,     &programming_guide};
  return table;
}

}  // namespace CUDALAB_BACKEND
}  // namespace managed_memory
