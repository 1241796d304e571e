// Launches the kernels of fidelity_kernels.cuh once each on the GPU, for ncu
// to count requests, sectors and shared-memory wavefronts
// (tools/fidelity_compare.py runs it under ncu and compares with
// `emu_bench --fidelity`, which runs the same source on the emulator).
//
// It then checks the launch errors the emulator copies from the GPU for
// dynamic shared memory above 48 KiB (tests/emu/test_plain_cuda.cpp,
// DynamicSharedAbove48KiBNeedsTheAttribute) and exits 1 when the GPU
// answers differently.
#include <cstdio>
#include <cstdlib>

#include "fidelity_kernels.cuh"

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
  using namespace emu_fidelity;
  float* in = nullptr;
  float* out = nullptr;
  __half* in_half = nullptr;
  __half* out_half = nullptr;
  float* bins = nullptr;
  check(cudaMalloc(&in, size_t{32} * kThreads * sizeof(float)), "cudaMalloc in");
  check(cudaMalloc(&out, kThreads * sizeof(float)), "cudaMalloc out");
  check(cudaMalloc(&in_half, kThreads * sizeof(__half)), "cudaMalloc in_half");
  check(cudaMalloc(&out_half, kThreads * sizeof(__half)), "cudaMalloc out_half");
  check(cudaMalloc(&bins, 64 * sizeof(float)), "cudaMalloc bins");
  check(cudaMemset(in, 0, size_t{32} * kThreads * sizeof(float)), "cudaMemset in");
  check(cudaMemset(in_half, 0, kThreads * sizeof(__half)), "cudaMemset in_half");
  check(cudaMemset(bins, 0, 64 * sizeof(float)), "cudaMemset bins");
  run_all(Buffers{in, out, in_half, out_half, bins}, [](const char* name, auto&& launch) {
    launch();
    check(cudaGetLastError(), name);
    check(cudaDeviceSynchronize(), name);
    std::printf("launched %s\n", name);
  });
  for (void* p : {static_cast<void*>(in), static_cast<void*>(out), static_cast<void*>(in_half),
                  static_cast<void*>(out_half), static_cast<void*>(bins)}) {
    check(cudaFree(p), "cudaFree");
  }
  return dynamic_shared_errors_match() ? 0 : 1;
}
