// The kernels lab 03's exercises launch on their streams: a spin that keeps
// a stream busy for a given time (the lecture's stand-in for a long kernel:
// cudalab::Spinner, from cudalab/spinner.hpp), the lecture's producer (fill
// A) and consumer (sum A), and the pipeline's compute step. Harness code:
// the exercises are about where these run and what orders them, not about
// the kernels.
#pragma once

#include "cudalab/kernel.hpp"
#include "cudalab/spinner.hpp"

namespace lab03 {
inline namespace CUDALAB_BACKEND {

// a[i] = value: the producer (torch.normal_ in the lecture).
__global__ void fill_kernel(float* a, int n, float value) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = value;
}

// *out = a[0] + ... + a[n-1] in one block of kSumThreads: the consumer
// (A.sum() in the lecture). Exact for integer values up to 2^24.
inline constexpr int kSumThreads = 256;
__global__ void sum_kernel(const float* a, int n, float* out) {
  __shared__ float partial[kSumThreads];
  float total = 0.0f;
  for (int i = threadIdx.x; i < n; i += kSumThreads) total += a[i];
  partial[threadIdx.x] = total;
  __syncthreads();
  for (int half = kSumThreads / 2; half > 0; half /= 2) {
    if (static_cast<int>(threadIdx.x) < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) *out = partial[0];
}

// The two launches the exercises call. Never inlined into the caller, so
// that a report about the work they issue (a race between streams) names
// the student's line that called them: the emulator reports the innermost
// line of lab code on the stack.
[[gnu::noinline]] inline void fill(float* a, int n, float value, cudaStream_t stream) {
  if (n > 0) fill_kernel<<<(n + 255) / 256, 256, 0, stream>>>(a, n, value);
}

[[gnu::noinline]] inline void sum(const float* a, int n, float* out, cudaStream_t stream) {
  sum_kernel<<<1, kSumThreads, 0, stream>>>(a, n, out);
}

// The pipeline's compute step: `iterations` steps of x = x * 0.999 + 0.001
// per element, each a fused multiply-add rounded once (the host's
// std::fmaf gives the same bits), so that the GPU's time per element can be
// set to match the copies'.
__device__ inline float compute_element(float x, int iterations) {
  for (int k = 0; k < iterations; ++k) x = fmaf(x, 0.999f, 0.001f);
  return x;
}

__global__ void compute_kernel(const float* in, float* out, int n, int iterations) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = compute_element(in[i], iterations);
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab03
