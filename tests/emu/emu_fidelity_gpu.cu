// Launches the four load patterns of coalescing_kernels.cuh once each on the
// GPU, for ncu to measure sectors per request (one command line):
//
//   ncu --clock-control none --kernel-name regex:load_
//     --metrics
//     l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
//     ./emu_fidelity_gpu
//
// `emu_bench --fidelity` prints the emulator's figures for the same launches.
//
// It then checks the launch errors the emulator copies from the GPU for
// dynamic shared memory above 48 KiB (tests/emu/test_plain_cuda.cpp,
// DynamicSharedAbove48KiBNeedsTheAttribute) and exits 1 when the GPU
// answers differently.
#include <cstdio>
#include <cstdlib>

#include "coalescing_kernels.cuh"

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

__global__ void touch_dynamic_shared(int* out, int last) {
  extern __shared__ int buffer[];
  buffer[last] = 7;
  *out = buffer[last];
}

// What the emulator does (shared_memory.cpp, engine.cpp's validate_launch).
bool dynamic_shared_errors_match() {
  int* out = nullptr;
  check(cudaMalloc(&out, sizeof(int)), "cudaMalloc out");
  const int bytes = 100 * 1024;
  bool ok = true;
  auto expect = [&](cudaError_t got, cudaError_t wanted, const char* what) {
    std::printf("%-58s %s (emulator: %s)\n", what, cudaGetErrorName(got), cudaGetErrorName(wanted));
    ok = ok && got == wanted;
  };
  touch_dynamic_shared<<<1, 1, bytes>>>(out, bytes / 4 - 1);
  expect(cudaGetLastError(), cudaErrorInvalidValue,
         "100 KiB dynamic shared without the attribute:");
  expect(cudaFuncSetAttribute(touch_dynamic_shared, cudaFuncAttributeMaxDynamicSharedMemorySize,
                              228 * 1024),
         cudaErrorInvalidValue, "attribute of 228 KiB:");
  cudaGetLastError();
  expect(cudaFuncSetAttribute(touch_dynamic_shared, cudaFuncAttributeMaxDynamicSharedMemorySize,
                              bytes),
         cudaSuccess, "attribute of 100 KiB:");
  touch_dynamic_shared<<<1, 1, bytes>>>(out, bytes / 4 - 1);
  expect(cudaGetLastError(), cudaSuccess, "100 KiB dynamic shared with it:");
  expect(cudaDeviceSynchronize(), cudaSuccess, "  and the kernel:");
  touch_dynamic_shared<<<1, 1, bytes + 4>>>(out, bytes / 4);
  expect(cudaGetLastError(), cudaErrorInvalidValue, "4 bytes more than the attribute allows:");
  cudaFree(out);
  return ok;
}

}  // namespace

int main() {
  constexpr int n = 1 << 20;  // threads per launch
  constexpr int block = 256;
  constexpr size_t in_elements = size_t{32} * n;  // the stride-32 kernel reads this far
  float* in = nullptr;
  float* out = nullptr;
  check(cudaMalloc(&in, in_elements * sizeof(float)), "cudaMalloc in");
  check(cudaMalloc(&out, n * sizeof(float)), "cudaMalloc out");
  check(cudaMemset(in, 0, in_elements * sizeof(float)), "cudaMemset");
  const dim3 grid((n + block - 1) / block);
  using namespace emu_fidelity;
  cudalab::launch(load_coalesced, grid, dim3(block), in, out, n);
  cudalab::launch(load_stride2, grid, dim3(block), in, out, n);
  cudalab::launch(load_stride32, grid, dim3(block), in, out, n);
  cudalab::launch(load_broadcast, grid, dim3(block), in, out, n);
  check(cudaGetLastError(), "launch");
  check(cudaDeviceSynchronize(), "kernels");
  std::printf(
      "launched load_coalesced, load_stride2, load_stride32, load_broadcast: %d threads each\n", n);
  cudaFree(in);
  cudaFree(out);
  return dynamic_shared_errors_match() ? 0 : 1;
}
