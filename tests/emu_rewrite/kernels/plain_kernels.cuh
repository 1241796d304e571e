// Plain CUDA, exactly as nvcc compiles it. The emulator build compiles the
// copy tools/emu_rewrite.py makes of it (CMakeLists.txt next door); nothing
// here is written for the emulator but the include.
#pragma once

#include <cstddef>

#include "cudalab/kernel.hpp"

template <class T, int Factor>
__global__ void scale(T* out, const T* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * T(Factor);
}

__global__ void add_one(float* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1.0f;
}

template <class T>
__global__ void fill(T* out, T value, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}

// Reverses each block's slice of `data` through dynamic shared memory.
__global__ void reverse_each_block(float* data) {
  extern __shared__ float slice[];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  slice[threadIdx.x] = data[i];
  __syncthreads();
  data[i] = slice[blockDim.x - 1 - threadIdx.x];
}

inline void triple(float* out, const float* in, int n, cudaStream_t stream) {
  scale<float, 3><<<(n + 127) / 128, 128, 0, stream>>>(out, in, n);
}

inline void increment(float* data, int n) {
  add_one<<<dim3((n + 63) / 64), dim3(64), 0, 0>>>(data, n);
}

// fill's template argument is deduced from the arguments, as CUDA does.
inline void fill_with(int* out, int value, int n) { fill<<<(n + 31) / 32, 32>>>(out, value, n); }

inline void reverse_blocks(float* data, int blocks, int block_size) {
  const std::size_t bytes = block_size * sizeof(float);
  reverse_each_block<<<blocks, block_size, bytes>>>(data);
}
