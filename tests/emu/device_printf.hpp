// Device printf on both backends: device_printf.cuh holds the kernels and
// their launches as plain CUDA, built for the emulator (device_printf_emu.cpp,
// rewritten and instrumented) and by nvcc (device_printf_gpu.cu);
// test_device_printf.cpp captures what each prints and expects the same.
#pragma once

#include <driver_types.h>

#include <cstddef>
#include <string>

namespace device_printf {

struct FifoResult {
  std::size_t default_bytes = 0;  // cudaDeviceGetLimit after cudaDeviceReset
  std::size_t set_bytes = 0;      // read back after setting the small size
  cudaError_t set_after_launch = cudaSuccess;
};

// One backend's launches; each synchronises before it returns, unless named otherwise.
struct Kernels {
  // The Programming Guide's helloCUDA<<<1, threads>>>(f).
  void (*hello)(float f, unsigned threads);
  // Every thread prints `per_thread` numbered lines naming its block and thread.
  void (*lines)(dim3 grid, dim3 block, int per_thread);
  // One thread prints a line of mixed conversions (ints, floats, strings, widths).
  void (*conversions)(int i, unsigned u, long long ll, double d, const char* s);
  // What printf returned in a kernel, for a format with 3 arguments and one with none.
  void (*return_values)(int* with_arguments, int* without);
  // Host printf around a launch, a blocking copy and a synchronisation.
  void (*host_and_device)();
  // A launch the host does not wait for, and the synchronisation after it.
  void (*launch_only)();
  void (*synchronize)();
  // cudaDeviceReset, a FIFO of `fifo_bytes`, then lines() of that shape; the
  // size is set again after the launch.
  FifoResult (*small_fifo)(std::size_t fifo_bytes, dim3 grid, dim3 block, int per_thread);
};

const Kernels& emulator_kernels();
const Kernels& gpu_kernels();
std::string gpu_unavailable_reason();  // "" when there is a GPU

}  // namespace device_printf
