// Device assert on both backends: device_assert.cuh (assert on) and
// device_assert_ndebug.cuh (built with NDEBUG) hold the kernels, built for
// the emulator (rewritten, instrumented) and by nvcc; test_device_assert.cpp
// expects the same from each. A failed assert ends the GPU's context for the
// process, so each failing case runs in a process of its own (ctest runs
// every test so) and later GPU cases in the same process are skipped.
#pragma once

#include <driver_types.h>

#include <string>
#include <vector>

namespace device_assert {

struct Failure {
  cudaError_t launch = cudaSuccess;        // cudaGetLastError right after the launch
  cudaError_t synchronize = cudaSuccess;   // cudaDeviceSynchronize
  cudaError_t again = cudaSuccess;         // cudaDeviceSynchronize once more
  cudaError_t malloc_after = cudaSuccess;  // cudaMalloc after it
  cudaError_t last_error = cudaSuccess;    // cudaGetLastError after all that
};

struct Kernels {
  // out[i] = 2 * in[i] after assert(in[i] >= 0), blocks of `block` threads.
  // Returns what the kernel wrote (inputs must all be non-negative).
  std::vector<int> (*doubled)(const std::vector<int>& in, unsigned block);
  // The same with in[bad] < 0: the launch fails.
  Failure (*doubled_failing)(std::vector<int> in, unsigned block, unsigned bad);
  // The Programming Guide's testAssert<<<1, 1>>>, then cudaDeviceSynchronize.
  cudaError_t (*programming_guide)();
  // Under NDEBUG: assert(false) in a kernel is nothing; returns what it wrote (1).
  int (*ndebug)();
};

const Kernels& emulator_kernels();
const Kernels& gpu_kernels();
std::string gpu_unavailable_reason();
// Lines of the asserts in device_assert.cuh.
int doubled_assert_line();
int guide_assert_line();

int emulator_ndebug();
int gpu_ndebug();

}  // namespace device_assert
