// Lab 01, exercise 5: a (x, y) += b (y) at memory bandwidth, 16 bytes per access.
//
// Each thread loads four consecutive floats of a as one float4, adds b, and
// stores the float4: a quarter of the load and store instructions of the
// coalesced kernel, and each warp moves 512 bytes per request.
//
// A float4 access must be 16-byte aligned (a GPU faults on anything else).
// a may start anywhere (it can be a view into a larger buffer) and x * y need
// not be a multiple of 4, so a splits into three parts:
//   head    the 0-3 elements before the first 16-byte boundary
//   body    `vectors` aligned float4s
//   tail    the 0-3 elements after the last whole float4
// and rows (y floats) need not be multiples of 4 either, so one float4 may
// hold the end of one row and the start of the next.
//
// The exercise is the TODO region of labs/01_broadcast/ in this file, from its
// `begin` line to its `end` line; README.md says what it wants.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "broadcast_sum.cuh"
#include "cudalab/kernel.hpp"

namespace lab01 {
inline namespace CUDALAB_BACKEND {

struct Float4Split {
  int head = 0;     // elements before the first 16-byte boundary
  int vectors = 0;  // whole float4s after the head
  int tail = 0;     // elements after the last whole float4
};

inline Float4Split split_for_float4(const float* a, int size) {
  const auto misalignment = reinterpret_cast<std::uintptr_t>(a) % 16;
  if (misalignment % sizeof(float) != 0) {
    throw std::invalid_argument("a float array must be 4-byte aligned");
  }
  Float4Split split;
  split.head = std::min(static_cast<int>((16 - misalignment) % 16 / sizeof(float)), size);
  split.vectors = (size - split.head) / 4;
  split.tail = size - split.head - 4 * split.vectors;
  return split;
}

// The column after `column` in a row of y, wrapping to the next row.
__host__ __device__ inline int next_column(int column, int y) {
  return column + 1 == y ? 0 : column + 1;
}

// (The parameters are [[maybe_unused]] only so that the empty stub in labs/
// compiles without warnings.)
__global__ void broadcast_sum_vec4_kernel([[maybe_unused]] float* a,
                                          [[maybe_unused]] const float* b, [[maybe_unused]] int y,
                                          [[maybe_unused]] Float4Split split) {
  // TODO(ex5) begin, about 16 lines: thread t adds b to
  //   * the head element t, if t < split.head,
  //   * the tail element head + 4 * vectors + t, if t < split.tail,
  //   * the elements of body float4 number t, if t < split.vectors, with one
  //     16-byte load and one 16-byte store:
  //       float4* body = reinterpret_cast<float4*>(a + split.head);
  //       float4 v = body[t];  ...  body[t] = v;
  //     Mind the columns: v.x is element head + 4 * t of a, and a row of y
  //     floats may end inside one float4 (next_column helps).
  // TODO(ex5) end
}

inline void broadcast_sum_vec4(float* a, const float* b, int x, int y, int block_size) {
  const int size = matrix_size(x, y);
  if (block_size < 1 || block_size > 1024) {
    throw std::invalid_argument("block size " + std::to_string(block_size) +
                                " is not in [1, 1024]");
  }
  if (size == 0) return;
  const Float4Split split = split_for_float4(a, size);
  const int threads = std::max({split.vectors, split.head, split.tail});
  const auto blocks = static_cast<unsigned>((threads + block_size - 1) / block_size);
  broadcast_sum_vec4_kernel<<<blocks, block_size>>>(a, b, y, split);
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab01
