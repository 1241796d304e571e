// emu_bench's kernels, written as a student writes CUDA (`float*`,
// `__shared__`, `<<<>>>`). The benchmark compiles the rewritten
// copy of this file (cmake/CudalabEmuRewrite.cmake) with the emulator's
// instrumentation, so every access goes through the __tsan_* hooks.
#include "emu_bench_plain.hpp"

#include <cstdint>

#include "cudalab/kernel.hpp"
#include "cudalab/mma.hpp"

namespace emu_bench::plain {

namespace device {

__global__ void axpy(float a, const float* x, float* y, long long n) {
  long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void block_sum(const float* in, float* out, long long n) {
  __shared__ float partial[kReduceBlock];
  long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

// `repeats` fp16 mma.sync m16n8k16 per warp, accumulating into d: A and B
// hold 1.0 in every fp16 half, so d grows by 16 per instruction.
__global__ void mma_chain(float* out, int repeats) {
  const std::uint32_t a[4] = {0x3c003c00u, 0x3c003c00u, 0x3c003c00u, 0x3c003c00u};
  const std::uint32_t b[2] = {0x3c003c00u, 0x3c003c00u};
  float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int r = 0; r < repeats; ++r) cudalab::mma_m16n8k16_f16(d, a, b, d);
  out[blockIdx.x * blockDim.x + threadIdx.x] = d[0];
}

}  // namespace device

void axpy(dim3 grid, dim3 block, float a, const float* x, float* y, long long n) {
  device::axpy<<<grid, block>>>(a, x, y, n);
}

void block_sum(dim3 grid, const float* in, float* out, long long n) {
  device::block_sum<<<grid, kReduceBlock>>>(in, out, n);
}

void mma_chain(dim3 grid, float* out, int repeats) {
  device::mma_chain<<<grid, kMmaBlock>>>(out, repeats);
}

}  // namespace emu_bench::plain
