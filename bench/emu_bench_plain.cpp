// The plain-CUDA versions of emu_bench's kernels, compiled with the
// emulator's instrumentation (cudalab_emu_instrument): the same work as the
// global_ptr kernels of emu_bench.cpp, seen through the __tsan_* hooks.
#include "emu_bench_plain.hpp"

#include "cudalab/kernel.hpp"

namespace emu_bench::plain {

namespace device {

__global__ void axpy(float a, const float* x, float* y, long long n) {
  long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void block_sum(const float* in, float* out, long long n) {
  float(&partial)[kReduceBlock] = cudalab::emu::static_shared<float[kReduceBlock]>([] {});
  long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

}  // namespace device

void axpy(dim3 grid, dim3 block, float a, const float* x, float* y, long long n) {
  cudalab::emu::launch_kernel(device::axpy, grid, block, 0, nullptr, a, x, y, n);
}

void block_sum(dim3 grid, const float* in, float* out, long long n) {
  cudalab::emu::launch_kernel(device::block_sum, grid, dim3(kReduceBlock), 0, nullptr, in, out, n);
}

}  // namespace emu_bench::plain
