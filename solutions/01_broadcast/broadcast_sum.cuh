// Lab 01, exercises 1-3: the lecture's broadcast_sum kernel.
//
// The job, in PyTorch: a += b.expand_as(a), for a row-major matrix a of x rows
// and y columns and a vector b of y elements, so a[j][k] += b[k]. The lecture
// launches one thread per element of a.
//
// The exercises are the TODO regions of labs/01_broadcast/, each from its
// `begin` line to its `end` line; README.md says what each one wants.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "cudalab/kernel.hpp"

// The element (i, j) of a row-major matrix with dj columns.
// Each argument is parenthesised, so IDX2D(i % x, k, y) means y * (i % x) + k,
// not (y * i) % x + k.
#define IDX2D(i, j, dj) ((dj) * (i) + (j))

namespace lab01 {
inline namespace CUDALAB_BACKEND {

using cudalab::LaunchShape;

// x * y as the kernels' int element count; negative sizes and counts that do
// not fit in an int are refused before anything is launched.
inline int matrix_size(int x, int y) {
  const std::int64_t size = std::int64_t{x} * y;
  if (x < 0 || y < 0 || size > std::numeric_limits<int>::max()) {
    throw std::invalid_argument("matrix of " + std::to_string(x) + " x " + std::to_string(y) +
                                " elements: sizes must be >= 0 and the product fit in an int");
  }
  return static_cast<int>(size);
}

// ---- Exercise 1: the global thread index ------------------------------------
//
// One thread per element of a. The grid may be 2-D (the lecture's grid helper
// makes it so beyond 65535 blocks); blocks are numbered row by row.
__global__ void broadcast_sum_kernel(float* a, const float* b, int x, int y, int size) {
  // Block (bx, by) is block number bx + by * gridDim.x; each holds blockDim.x threads.
  // Counted in 64 bits: rounded up to whole blocks and rows of blocks, the
  // grid for close to 2^31 elements can hold more than 2^31 threads, and the
  // last ones' 32-bit index would wrap to a negative int that passes the size
  // check and writes before a. Below size, the index fits an int again (and
  // int division is cheaper).
  const std::int64_t global_thread =
      (blockIdx.x + std::int64_t{blockIdx.y} * gridDim.x) * blockDim.x + threadIdx.x;
  if (global_thread >= size) return;
  const int i = static_cast<int>(global_thread);
  // The lecture's mapping: thread i takes row i % x, column i / x.
  const int k = i / x % y;
  a[IDX2D(i % x, k, y)] += b[k];
}

// Launches the exercise 1 kernel on the grid and block the caller chose.
inline void broadcast_sum_lecture(float* a, const float* b, int x, int y, LaunchShape shape) {
  const int size = matrix_size(x, y);
  broadcast_sum_kernel<<<shape.grid, shape.block>>>(a, b, x, y, size);
}

// ---- Exercise 2: a launch configuration for any size ------------------------
//
// broadcast_sum_launch_shape: the grid and block for `size` threads in blocks
// of `block_size` threads.
//
// The lecture's grid helper (cuda_gridsize), for any block size: enough blocks
// of block_size threads to cover `size` threads, in a 2-D grid once there are
// more than 65535 blocks. (Since compute capability 3.0 gridDim.x may reach
// 2^31 - 1, but gridDim.y and gridDim.z still stop at 65535; the lecture's
// helper predates that, and its 2-D grid works on every GPU.)
inline LaunchShape broadcast_sum_launch_shape(int size, int block_size) {
  if (block_size < 1 || block_size > 1024) {
    throw std::invalid_argument("block size " + std::to_string(block_size) +
                                " is not in [1, 1024]");
  }
  const std::int64_t blocks = (std::int64_t{size} + block_size - 1) / block_size;
  constexpr std::int64_t kMaxBlocksPerRow = 65535;
  dim3 grid(static_cast<unsigned>(blocks), 1, 1);
  if (blocks > kMaxBlocksPerRow) {
    grid.x = static_cast<unsigned>(std::ceil(std::sqrt(static_cast<double>(blocks))));
    grid.y = static_cast<unsigned>((blocks + grid.x - 1) / grid.x);
  }
  return LaunchShape{grid, dim3(static_cast<unsigned>(block_size), 1, 1)};
}

// a += b.expand_as(a) with the exercise 1 kernel, for any x, y and block size.
inline void broadcast_sum(float* a, const float* b, int x, int y, int block_size) {
  const int size = matrix_size(x, y);
  const LaunchShape shape = broadcast_sum_launch_shape(size, block_size);
  if (size == 0) return;  // a grid of zero blocks is an invalid configuration
  broadcast_sum_kernel<<<shape.grid, shape.block>>>(a, b, x, y, size);
}

// ---- Exercise 3: coalesced writes -------------------------------------------
//
// The same result, but the 32 threads of a warp must write 32 neighbouring
// floats of a (four 32-byte sectors), where the lecture's mapping has them
// write 32 floats that lie y apart.
__global__ void broadcast_sum_coalesced_kernel(float* a, const float* b, [[maybe_unused]] int x,
                                               int y, int size) {
  // Thread i owns element i of a: row i / y, column i % y. The 32 threads of a
  // warp write 32 neighbouring floats (128 bytes, four 32-byte sectors).
  // The index in 64 bits, as in exercise 1.
  const std::int64_t global_thread =
      (blockIdx.x + std::int64_t{blockIdx.y} * gridDim.x) * blockDim.x + threadIdx.x;
  if (global_thread >= size) return;
  const int i = static_cast<int>(global_thread);
  // IDX2D(i / y, i % y, y) is i itself: no macro needed, so this kernel is
  // right whatever exercise 1's IDX2D does.
  a[i] += b[i % y];
}

inline void broadcast_sum_coalesced(float* a, const float* b, int x, int y, int block_size) {
  const int size = matrix_size(x, y);
  const LaunchShape shape = broadcast_sum_launch_shape(size, block_size);
  if (size == 0) return;
  broadcast_sum_coalesced_kernel<<<shape.grid, shape.block>>>(a, b, x, y, size);
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab01
