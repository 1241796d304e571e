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
// TODO(ex1) begin, about 1 line: the lecture's macro. What does
// IDX2D(i % x, k, y) expand to? Fix it.
#define IDX2D(i, j, dj) (dj * i + j)
// TODO(ex1) end

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
  // TODO(ex1) begin, about 3 lines: some elements of a are added twice and others
  // never. Why? The index must not overflow for 2^31 elements either: the grid
  // then holds more than 2^31 threads.
  const int i = (blockIdx.x + blockIdx.y * gridDim.x) * blockIdx.x + threadIdx.x;
  if (i >= size) return;
  // TODO(ex1) end
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
// TODO(ex2) begin, about 14 lines: one thread per element (exercise 3 launches
// with it too) for every size up to INT_MAX and every block size in [1, 1024].
// Nothing may overflow an int on the way, and the grid may hold more than 2^31
// threads.
//
// The lecture's grid helper, cuda_gridsize, written for its BLOCK of 512
// threads: a 1-D grid, or a 2-D one once there are more than 65535 blocks.
constexpr int BLOCK = 512;

inline dim3 cuda_gridsize(int n) {
  int k = (n - 1) / BLOCK + 1;
  int x = k;
  int y = 1;
  if (x > 65535) {
    x = static_cast<int>(std::ceil(std::sqrt(k)));
    y = (n - 1) / (x * BLOCK) + 1;
  }
  return dim3(static_cast<unsigned>(x), static_cast<unsigned>(y), 1);
}

inline LaunchShape broadcast_sum_launch_shape(int size, int block_size) {
  return LaunchShape{cuda_gridsize(size), dim3(static_cast<unsigned>(block_size), 1, 1)};
}
// TODO(ex2) end

// a += b.expand_as(a) with the exercise 1 kernel, for any x, y and block size.
inline void broadcast_sum(float* a, const float* b, int x, int y, int block_size) {
  const int size = matrix_size(x, y);
  // TODO(ex2) begin, about 3 lines: size 0 must not make an invalid launch.
  const LaunchShape shape = broadcast_sum_launch_shape(size, block_size);
  broadcast_sum_kernel<<<shape.grid, shape.block>>>(a, b, x, y, size);
  // TODO(ex2) end
}

// ---- Exercise 3: coalesced writes -------------------------------------------
//
// The same result, but the 32 threads of a warp must write 32 neighbouring
// floats of a (four 32-byte sectors), where the lecture's mapping has them
// write 32 floats that lie y apart.
__global__ void broadcast_sum_coalesced_kernel(float* a, const float* b, [[maybe_unused]] int x,
                                               int y, int size) {
  // TODO(ex3) begin, about 5 lines: a copy of the lecture kernel, bugs included.
  // Fix the index as in exercise 1 (no overflow for 2^31 elements), then change
  // which element thread i owns.
  const int i = (blockIdx.x + blockIdx.y * gridDim.x) * blockIdx.x + threadIdx.x;
  if (i >= size) return;
  const int k = i / x % y;
  a[IDX2D(i % x, k, y)] += b[k];
  // TODO(ex3) end
}

inline void broadcast_sum_coalesced(float* a, const float* b, int x, int y, int block_size) {
  const int size = matrix_size(x, y);
  const LaunchShape shape = broadcast_sum_launch_shape(size, block_size);
  // TODO(ex3) begin, about 1 line: size 0, as in exercise 2.
  // TODO(ex3) end
  broadcast_sum_coalesced_kernel<<<shape.grid, shape.block>>>(a, b, x, y, size);
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab01
