// The managed-memory code on the emulator: this file's rewritten copy
// includes the rewritten copy of managed_memory.cuh beside it, instrumented.
// The host access during a kernel is here, not in the .cuh: an H200 under
// Linux allows it (concurrentManagedAccess = 1); the emulator reports it.
#include "managed_memory.cuh"

namespace managed_memory {

const Kernels& emulator_kernels() { return kernels(); }

int emulator_read_while_kernel_outstanding(bool on_stream) {
  const int n = 1000;
  int *mx = nullptr, *my = nullptr;
  CUDA_CHECK(cudaMallocManaged(&mx, n * sizeof(int)));
  CUDA_CHECK(cudaMallocManaged(&my, n * sizeof(int)));
  cudaStream_t s = nullptr;
  if (on_stream) CUDA_CHECK(cudaStreamCreate(&s));
  device::triple_plus_one_kernel<<<(n + 127) / 128, 128, 0, s>>>(mx, my, n);
  const volatile int* read = my;
  return read[n / 2];  // no synchronisation first
}

int emulator_host_attached_while_kernel_outstanding() {
  const int n = 300;
  int *mx = nullptr, *my = nullptr, *host_side = nullptr;
  CUDA_CHECK(cudaMallocManaged(&mx, n * sizeof(int)));
  CUDA_CHECK(cudaMallocManaged(&my, n * sizeof(int)));
  CUDA_CHECK(cudaMallocManaged(&host_side, sizeof(int), cudaMemAttachHost));
  device::triple_plus_one_kernel<<<(n + 127) / 128, 128>>>(mx, my, n);
  *host_side = 41;
  const int value = *host_side + 1;
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaFree(mx));
  CUDA_CHECK(cudaFree(my));
  CUDA_CHECK(cudaFree(host_side));
  return value;
}

}  // namespace managed_memory
