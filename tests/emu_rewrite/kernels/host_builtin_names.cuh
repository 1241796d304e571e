// Host code that names variables and members like CUDA's builtins, as real
// projects do (`dim3 gridDim, blockDim;`, cudaKernelNodeParams' `gridDim`),
// next to kernels that read the builtins. Plain CUDA: nvcc compiles it as it
// stands; the emulator build compiles the rewritten copy.
#pragma once

#include <cuda_runtime.h>

#include "cudalab/kernel.hpp"

// Each thread writes its global index plus the grid's width times 1000.
__global__ void write_index_and_grid(unsigned* out) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = i + gridDim.x * 1000u;
}

// A launch shape whose members carry the builtins' names, with a device
// function that reads the builtin threadIdx in the same declaration.
struct NamedLikeBuiltins {
  dim3 gridDim;
  dim3 blockDim;
  __device__ static unsigned thread_in_block() { return threadIdx.x; }
};

__global__ void write_thread_in_block(unsigned* out) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = NamedLikeBuiltins::thread_in_block();
}

// Launches write_index_and_grid with a shape held in host variables and
// members named gridDim and blockDim; the kernel node parameters of the
// graph API carry the same names.
inline void launch_through_host_names(unsigned* out, unsigned blocks, unsigned threads) {
  dim3 gridDim(blocks), blockDim(threads);
  cudaKernelNodeParams params{};
  params.gridDim = gridDim;
  params.blockDim = blockDim;
  NamedLikeBuiltins shape{params.gridDim, params.blockDim};
  write_index_and_grid<<<shape.gridDim, shape.blockDim>>>(out);
  write_thread_in_block<<<gridDim, blockDim>>>(out + blocks * threads);
}
