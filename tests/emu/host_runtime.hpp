// Device flags, registered host memory and profiler ranges on both backends:
// host_runtime.cuh holds the code as plain CUDA, built for the emulator
// (host_runtime_emu.cpp, rewritten and instrumented) and by nvcc
// (host_runtime_gpu.cu); test_host_runtime.cpp expects the same of each.
#pragma once

#include <driver_types.h>

#include <string>
#include <vector>

namespace host_runtime {

struct Registered {
  std::vector<int> result;                           // x + 1, through a registered copy on a stream
  cudaMemoryType type = cudaMemoryTypeUnregistered;  // cudaPointerGetAttributes
  bool device_pointer_is_host_pointer = false;       // cudaHostGetDevicePointer
};

struct DeviceFlags {
  unsigned initial = 0;                     // cudaGetDeviceFlags before any set
  unsigned after_blocking_sync = 0;         // ... after cudaSetDeviceFlags(BlockingSync)
  cudaError_t two_schedules = cudaSuccess;  // Spin | Yield
  cudaError_t unknown_bit = cudaSuccess;    // 0x100
};

struct Kernels {
  // Registers the memory of x (mapped), copies it to the device on a stream,
  // adds 1 with a kernel, copies back into the registered memory, then
  // unregisters it.
  Registered (*registered_round_trip)(const std::vector<int>& x);
  // Errors: {register twice, register a part of registered memory,
  // unregister unknown memory, unregister twice, register nullptr, register
  // 0 bytes, register with flag 0x100, register cudaMallocHost memory,
  // cudaHostUnregister of cudaMallocHost memory, device pointer of
  // unregistered memory}.
  std::vector<cudaError_t> (*registration_errors)();
  DeviceFlags (*device_flags)();
  // cudaProfilerStart, a kernel, cudaProfilerStop: {start, stop, the sum}.
  std::vector<long long> (*profiler_range)();
};

const Kernels& emulator_kernels();
const Kernels& gpu_kernels();
std::string gpu_unavailable_reason();

}  // namespace host_runtime
