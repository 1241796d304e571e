// Managed memory on both backends: managed_memory.cuh holds the kernels and
// host code as plain CUDA, built for the emulator (managed_memory_emu.cpp,
// rewritten and instrumented) and by nvcc (managed_memory_gpu.cu);
// test_managed_memory.cpp expects the same from each.
#pragma once

#include <driver_types.h>

#include <string>
#include <vector>

namespace managed_memory {

struct Attributes {
  cudaError_t error = cudaSuccess;
  cudaMemoryType type = cudaMemoryTypeUnregistered;
  int device = -2;
  bool device_is_host_pointer = false;          // devicePointer == hostPointer == the allocation
  int managed_memory = -1;                      // cudaDevAttrManagedMemory
  int concurrent_managed_access = -1;           // cudaDevAttrConcurrentManagedAccess
  int prop_managed = -1, prop_concurrent = -1;  // cudaGetDeviceProperties
};

struct Kernels {
  // Host writes x into managed memory, a kernel computes y = 3x + 1 into a
  // second managed array (blocks of `block`), the host reads y after
  // cudaDeviceSynchronize. flags: cudaMemAttachGlobal or cudaMemAttachHost.
  std::vector<int> (*triple_plus_one)(const std::vector<int>& x, unsigned block, unsigned flags);
  // The same on a created stream, with a prefetch to the device before and
  // to the host after, and cudaMemAdvise calls; synchronised with the stream.
  std::vector<int> (*with_prefetch)(const std::vector<int>& x, unsigned block);
  Attributes (*attributes)();
  // cudaMallocManaged's error for these flags or size (0 bytes).
  cudaError_t (*malloc_error)(std::size_t bytes, unsigned flags);
  // Errors of bad calls: {prefetch flags 1, prefetch of cudaMalloc memory,
  // prefetch to device 99, advise 99, advise preferred location device 99}.
  std::vector<cudaError_t> (*bad_calls)();
  // The Programming Guide's AplusB example: what it prints.
  void (*programming_guide)();
};

const Kernels& emulator_kernels();
const Kernels& gpu_kernels();
std::string gpu_unavailable_reason();

// Emulator only: a kernel launched on managed memory, then a host read of
// it before any synchronisation (the process dies with a report).
int emulator_read_while_kernel_outstanding(bool on_stream);
// Emulator only: host access to cudaMemAttachHost memory while a kernel is
// outstanding is allowed; returns what the host read back.
int emulator_host_attached_while_kernel_outstanding();

}  // namespace managed_memory
