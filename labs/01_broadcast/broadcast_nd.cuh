// Lab 01, exercise 4: out = a + b with PyTorch's broadcasting rules, for
// tensors of up to 4 dimensions, in fp32 and fp16.
//
// The rules (torch.broadcast_shapes): align the shapes at their last
// dimension; a missing leading dimension counts as size 1; two sizes match if
// they are equal or one of them is 1, and the result takes the other one.
//   [3, 4] + [4]        -> [3, 4]
//   [3, 1] + [1, 4]     -> [3, 4]
//   [2, 1, 5] + [3, 1]  -> [2, 3, 5]
//   [3, 4] + [5]        -> error: dimension -1 has sizes 4 and 5
// The exercise is the TODO regions of labs/01_broadcast/, each from its
// `begin` line to its `end` line; README.md says what it wants.
//
// An input is never copied to the result's shape: it is read through strides
// that are 0 along the dimensions it is broadcast over (what expand() does).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "cudalab/kernel.hpp"

namespace lab01 {
inline namespace CUDALAB_BACKEND {

using Shape = std::vector<std::int64_t>;  // sizes, outermost first, as in PyTorch
constexpr int kMaxRank = 4;

// "[3, 4]"
inline std::string shape_to_string(const Shape& shape) {
  std::string text = "[";
  for (std::size_t d = 0; d < shape.size(); ++d) {
    text += (d == 0 ? "" : ", ") + std::to_string(shape[d]);
  }
  return text + "]";
}

// The number of elements of a tensor of `shape` (1 for the 0-d shape []).
inline std::int64_t element_count(const Shape& shape) {
  std::int64_t count = 1;
  for (std::int64_t size : shape) count *= size;
  return count;
}

// ---- Exercise 4a: the result's shape ----------------------------------------
//
// The shape of a + b, or std::invalid_argument naming both shapes and the
// first dimension (counted from the right, -1 is the last) that does not match.
inline Shape broadcast_shapes(const Shape& a, const Shape& b) {
  // TODO(ex4) begin, about 23 lines: the rules at the top of this file. Check
  // the ranks (at most kMaxRank) and sizes (not negative) too. Message for
  // shapes that do not broadcast, e.g.:
  //   shapes [3, 4] and [5] cannot broadcast: dimension -1 has sizes 4 and 5
  // (shape_to_string writes "[3, 4]").
  throw std::logic_error("exercise 4: broadcast_shapes(" + shape_to_string(a) + ", " +
                         shape_to_string(b) + ") is not written yet");
  // TODO(ex4) end
}

// ---- Exercise 4b: strides for reading an input as the result's shape ---------
//
// Strides (in elements) of a contiguous tensor of `shape`, padded on the left
// to kMaxRank dimensions, with stride 0 along every dimension where `shape`
// has size 1 or no dimension at all: moving along such a dimension of the
// result reads the same input element again.
inline std::array<int, kMaxRank> broadcast_strides(const Shape& shape) {
  // TODO(ex4) begin, about 8 lines: for shape [3, 1] this is {0, 0, 1, 0}; for
  // [2, 3, 4] it is {0, 12, 4, 1}.
  throw std::logic_error("exercise 4: broadcast_strides(" + shape_to_string(shape) +
                         ") is not written yet");
  // TODO(ex4) end
}

// What a thread needs to find its inputs: the result's sizes padded on the
// left with 1s to kMaxRank dimensions, and both inputs' broadcast strides.
struct BroadcastIndexing {
  std::array<int, kMaxRank> out_sizes;
  std::array<int, kMaxRank> a_strides;
  std::array<int, kMaxRank> b_strides;
};

// fp16 adds in fp32 and rounds once, as PyTorch does.
__host__ __device__ inline float add_elements(float a, float b) { return a + b; }
__host__ __device__ inline __half add_elements(__half a, __half b) {
  return __float2half(__half2float(a) + __half2float(b));
}

// ---- Exercise 4c: the kernel -------------------------------------------------
//
// One thread per element of out (a 1-D grid: gridDim.x may reach 2^31 - 1).
// Thread i splits i into out's coordinates, innermost first, and sums each
// coordinate times the input's stride to find the elements of a and b it adds.
// (The parameters are [[maybe_unused]] only so that the empty stub in labs/
// compiles without warnings.)
template <class T>
__global__ void broadcast_add_kernel([[maybe_unused]] T* out, [[maybe_unused]] const T* a,
                                     [[maybe_unused]] const T* b,
                                     [[maybe_unused]] BroadcastIndexing indexing,
                                     [[maybe_unused]] int size) {
  // TODO(ex4) begin, about 16 lines: out[i] = add_elements(a[...], b[...]) for
  // this thread's i, which must not overflow for 2^31 elements (the grid may
  // then hold more than 2^31 threads). (Load an element into a variable of
  // type T before passing it on: `const T a_value = a[a_offset];`.)
  // TODO(ex4) end
}

// out = a + b, where out holds element_count(broadcast_shapes(a_shape,
// b_shape)) elements (it may be a itself when a already has the result's
// shape). Shapes that cannot broadcast throw before anything is launched.
// The kernel runs on `stream` (exercise 6 passes PyTorch's current stream).
template <class T>
void broadcast_add(T* out, const T* a, const Shape& a_shape, const T* b, const Shape& b_shape,
                   int block_size, cudaStream_t stream = 0) {
  const Shape out_shape = broadcast_shapes(a_shape, b_shape);
  const std::int64_t size = element_count(out_shape);
  if (size > std::numeric_limits<int>::max()) {
    throw std::invalid_argument("result of shape " + shape_to_string(out_shape) +
                                " has more elements than an int can index");
  }
  if (block_size < 1 || block_size > 1024) {
    throw std::invalid_argument("block size " + std::to_string(block_size) +
                                " is not in [1, 1024]");
  }
  if (size == 0) return;

  BroadcastIndexing indexing{};
  indexing.out_sizes = {1, 1, 1, 1};
  for (std::size_t d = 0; d < out_shape.size(); ++d) {
    indexing.out_sizes[kMaxRank - out_shape.size() + d] = static_cast<int>(out_shape[d]);
  }
  indexing.a_strides = broadcast_strides(a_shape);
  indexing.b_strides = broadcast_strides(b_shape);

  const auto blocks = static_cast<unsigned>((size + block_size - 1) / block_size);
  broadcast_add_kernel<T>
      <<<blocks, block_size, 0, stream>>>(out, a, b, indexing, static_cast<int>(size));
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab01
