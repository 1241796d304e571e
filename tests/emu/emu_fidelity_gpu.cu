// Launches the four load patterns of coalescing_kernels.cuh once each on the
// GPU, for ncu to measure sectors per request (one command line):
//
//   ncu --clock-control none --kernel-name regex:load_
//     --metrics
//     l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
//     ./emu_fidelity_gpu
//
// `emu_bench --fidelity` prints the emulator's figures for the same launches.
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
  return 0;
}
