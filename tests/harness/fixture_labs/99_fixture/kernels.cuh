// The fixture lab's "student code" (tests/harness/fixture_lab.cpp): kernels
// that go wrong in the ways the harness must explain. It sits in a lab-shaped
// folder (NN_name) so that reports name it as they name a student's file.
#pragma once

#include "cudalab/check.hpp"
#include "cudalab/kernel.hpp"

namespace fixture {

// Kernels outside any anonymous namespace: the emulator names a kernel by
// its exported symbol.

__global__ void copy_kernel(float* out, const float* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

// Thread 5 of block 1 writes through a null pointer. Left out of the
// instrumentation, which would stop that write with an invalid-address
// report: this exercise is about the crash a write the emulator does not see
// makes (as in code compiled without cudalab_emu_instrument).
__global__ __attribute__((no_sanitize("thread"))) void crash_kernel(float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  volatile int* volatile nowhere = nullptr;
  if (blockIdx.x == 1 && threadIdx.x == 5) *nowhere = 1;
  if (i < n) out[i] = 0.0f;
}

__global__ void endless_kernel(float* out) {
  volatile bool forever = true;
  while (forever) {  // the loop the watchdog must name
  }
  out[0] = 1.0f;
}

// Every thread writes the same value to out[0]: the right answer, by a race.
__global__ void racy_kernel(float* out) { out[0] = 42.0f; }

// A local array far larger than a thread's stack.
__global__ void deep_stack_kernel(float* out) {
  volatile char scratch[1 << 20];
  scratch[threadIdx.x] = 1;  // the line the crash report must name
  out[threadIdx.x] = scratch[threadIdx.x] * 42.0f;
}

// 0/0 everywhere: an output of NaN.
__global__ void nan_kernel(float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float zero = static_cast<float>(threadIdx.x - threadIdx.x);
  if (i < n) out[i] = zero / zero;
}

// An index bug: threads 2k and 2k+1 both write element k, the upper half is
// never written.
__global__ void half_index_kernel(float* out, const float* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i / 2] = in[i];
}

// The harness's launch helper (fixture_lab.cpp).
void launch_copy(float* out, const float* in, int n, cudaStream_t stream);

// The "student's" host code: the same copy on a non-blocking stream and on
// the default stream, the right values whichever runs last, but a race
// between streams.
[[gnu::noinline]] inline void copy_on_two_streams(float* out, const float* in, int n) {
  cudaStream_t side = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  launch_copy(out, in, n, side);
  launch_copy(out, in, n, nullptr);     // the line the stream race report must name
  CUDA_CHECK(cudaStreamDestroy(side));  // its work still runs, at the next synchronisation
}

}  // namespace fixture
