// A __device__ helper whose plain __shared__ array lives in a header the
// source rewrite never sees (CMake rewrites plain_kernels.cpp, which includes
// this file from the source folder). The shim makes that array a
// `static thread_local`, outside every block's shared memory: the emulator
// must stop at its first access and say why, not run it untraced.
#pragma once

#include "cudalab/kernel.hpp"

namespace plain_kernels::device {

__device__ inline float through_unrewritten_shared(float v) {
  __shared__ float slot[32];
  slot[threadIdx.x % 32] = v;
  __syncthreads();
  return slot[(threadIdx.x + 1) % 32];
}
inline const char* const unrewritten_shared_file = __FILE__;
inline const int unrewritten_shared_write_line = __LINE__ - 5;

}  // namespace plain_kernels::device
