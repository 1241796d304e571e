// The host runtime calls of host_runtime.hpp as plain CUDA for both backends.
#pragma once

#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#include <cstdlib>
#include <vector>

#include "cudalab/check.hpp"
#include "cudalab/kernel.hpp"
#include "host_runtime.hpp"

namespace host_runtime {
// Each backend its own copy of the names (kernel.hpp), so that one binary links both.
inline namespace CUDALAB_BACKEND {
namespace device {

__global__ void add_one(int* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1;
}

__global__ void sum_to(const int* data, int n, long long* out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    long long sum = 0;
    for (int i = 0; i < n; ++i) sum += data[i];
    *out = sum;
  }
}

}  // namespace device

namespace {

Registered registered_round_trip(const std::vector<int>& x) {
  const int n = static_cast<int>(x.size());
  const std::size_t bytes = x.size() * sizeof(int);
  std::vector<int> host = x;
  CUDA_CHECK(cudaHostRegister(host.data(), bytes, cudaHostRegisterMapped));
  Registered r;
  cudaPointerAttributes attributes{};
  CUDA_CHECK(cudaPointerGetAttributes(&attributes, host.data()));
  r.type = attributes.type;
  void* device_view = nullptr;
  CUDA_CHECK(cudaHostGetDevicePointer(&device_view, host.data(), 0));
  r.device_pointer_is_host_pointer = device_view == host.data();
  int* d = nullptr;
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreate(&stream));
  CUDA_CHECK(cudaMalloc(&d, bytes));
  CUDA_CHECK(cudaMemcpyAsync(d, host.data(), bytes, cudaMemcpyHostToDevice, stream));
  device::add_one<<<(n + 127) / 128, 128, 0, stream>>>(d, n);
  CUDA_CHECK(cudaMemcpyAsync(host.data(), d, bytes, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaHostUnregister(host.data()));
  CUDA_CHECK(cudaFree(d));
  CUDA_CHECK(cudaStreamDestroy(stream));
  r.result = host;
  return r;
}

std::vector<cudaError_t> registration_errors() {
  const std::size_t bytes = 1 << 16;
  char* memory = static_cast<char*>(std::aligned_alloc(4096, bytes));
  void* pinned = nullptr;
  CUDA_CHECK(cudaMallocHost(&pinned, 4096));
  void* device_view = nullptr;
  std::vector<cudaError_t> errors;
  CUDA_CHECK(cudaHostRegister(memory, bytes, cudaHostRegisterDefault));
  errors.push_back(cudaHostRegister(memory, bytes, cudaHostRegisterDefault));
  errors.push_back(cudaHostRegister(memory + 4096, 4096, cudaHostRegisterDefault));
  CUDA_CHECK(cudaHostUnregister(memory));
  errors.push_back(cudaHostUnregister(memory + 4096));
  errors.push_back(cudaHostUnregister(memory));
  errors.push_back(cudaHostRegister(nullptr, bytes, cudaHostRegisterDefault));
  errors.push_back(cudaHostRegister(memory, 0, cudaHostRegisterDefault));
  errors.push_back(cudaHostRegister(memory, bytes, 0x100));
  errors.push_back(cudaHostRegister(pinned, 4096, cudaHostRegisterDefault));
  errors.push_back(cudaHostUnregister(pinned));
  errors.push_back(cudaHostGetDevicePointer(&device_view, memory, 0));
  cudaGetLastError();
  CUDA_CHECK(cudaFreeHost(pinned));
  std::free(memory);
  return errors;
}

DeviceFlags device_flags() {
  DeviceFlags f;
  CUDA_CHECK(cudaGetDeviceFlags(&f.initial));
  CUDA_CHECK(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync));
  CUDA_CHECK(cudaGetDeviceFlags(&f.after_blocking_sync));
  f.two_schedules = cudaSetDeviceFlags(cudaDeviceScheduleSpin | cudaDeviceScheduleYield);
  f.unknown_bit = cudaSetDeviceFlags(0x100);
  cudaGetLastError();
  CUDA_CHECK(cudaSetDeviceFlags(cudaDeviceScheduleAuto));
  return f;
}

std::vector<long long> profiler_range() {
  const int n = 1000;
  std::vector<int> ones(n, 1);
  int* d = nullptr;
  long long* sum = nullptr;
  CUDA_CHECK(cudaMalloc(&d, n * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&sum, sizeof(long long)));
  CUDA_CHECK(cudaMemcpy(d, ones.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  const cudaError_t start = cudaProfilerStart();
  device::sum_to<<<1, 32>>>(d, n, sum);
  const cudaError_t stop = cudaProfilerStop();
  long long result = 0;
  CUDA_CHECK(cudaMemcpy(&result, sum, sizeof result, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d));
  CUDA_CHECK(cudaFree(sum));
  return {start, stop, result};
}

const Kernels& kernels() {
  static const Kernels k{registered_round_trip, registration_errors, device_flags, profiler_range};
  return k;
}

}  // namespace
}  // namespace CUDALAB_BACKEND
}  // namespace host_runtime
