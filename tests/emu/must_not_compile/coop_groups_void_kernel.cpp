// Must not compile: a cooperative launch of a kernel the emulator cannot see
// the type of (a void* variable): it could not call it with its arguments.
#include <cooperative_groups.h>

#include "cudalab/kernel.hpp"

namespace cg = cooperative_groups;

__global__ void synced(int* out) {
  cg::this_grid().sync();
  out[threadIdx.x] = 1;
}

cudaError_t launch(int* out) {
  const void* kernel = reinterpret_cast<const void*>(&synced);
  void* args[] = {&out};
  return cudaLaunchCooperativeKernel(kernel, dim3(1), dim3(32), args, 0, 0);
}
