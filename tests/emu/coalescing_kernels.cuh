// The four load patterns whose sectors per request the emulator predicts and
// ncu measures on the GPU (docs/emulator.md, "Fidelity on the GPU").
// Plain CUDA; the emulator's tests (test_analyses.cpp) compile its rewritten,
// instrumented copy.
#pragma once

#include "cudalab/kernel.hpp"

namespace emu_fidelity {
inline namespace CUDALAB_BACKEND {

// Each warp loads 32 consecutive floats: 128 bytes = 4 sectors per request.
__global__ void load_coalesced(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

// Every other float: the warp's 32 loads span 256 bytes = 8 sectors.
__global__ void load_stride2(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[2 * i];
}

// One float per 128-byte line: 32 sectors per request, 1/8 of each used.
__global__ void load_stride32(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[32 * i];
}

// All lanes read the same float: one sector serves the warp.
__global__ void load_broadcast(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[0];
}

}  // namespace CUDALAB_BACKEND
}  // namespace emu_fidelity
