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
  const std::string both = "shapes " + shape_to_string(a) + " and " + shape_to_string(b);
  if (a.size() > kMaxRank || b.size() > kMaxRank) {
    throw std::invalid_argument(both + ": at most " + std::to_string(kMaxRank) +
                                " dimensions are supported");
  }
  for (const Shape* shape : {&a, &b}) {
    if (std::any_of(shape->begin(), shape->end(), [](std::int64_t s) { return s < 0; })) {
      throw std::invalid_argument(both + ": sizes must not be negative");
    }
  }
  const std::size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (std::size_t from_right = 1; from_right <= rank; ++from_right) {
    const std::int64_t size_a = from_right <= a.size() ? a[a.size() - from_right] : 1;
    const std::int64_t size_b = from_right <= b.size() ? b[b.size() - from_right] : 1;
    if (size_a != size_b && size_a != 1 && size_b != 1) {
      throw std::invalid_argument(both + " cannot broadcast: dimension -" +
                                  std::to_string(from_right) + " has sizes " +
                                  std::to_string(size_a) + " and " + std::to_string(size_b));
    }
    out[rank - from_right] = size_a == 1 ? size_b : size_a;
  }
  return out;
}

// ---- Exercise 4b: strides for reading an input as the result's shape ---------
//
// Strides (in elements) of a contiguous tensor of `shape`, padded on the left
// to kMaxRank dimensions, with stride 0 along every dimension where `shape`
// has size 1 or no dimension at all: moving along such a dimension of the
// result reads the same input element again.
inline std::array<int, kMaxRank> broadcast_strides(const Shape& shape) {
  std::array<int, kMaxRank> strides{};  // missing leading dimensions: 0
  int stride = 1;
  for (std::size_t from_right = 1; from_right <= shape.size(); ++from_right) {
    const std::int64_t size = shape[shape.size() - from_right];
    strides[kMaxRank - from_right] = size == 1 ? 0 : stride;
    stride *= static_cast<int>(size);
  }
  return strides;
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
  // Counted in 64 bits: rounded up to whole blocks, the grid for close to
  // 2^31 elements can hold more than 2^31 threads (2^31 - 2 elements in blocks
  // of 1000: 2^31 + 352), and the last ones' int index would wrap to a
  // negative value that passes the size check. Below size, it fits an int.
  const std::int64_t global_thread = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (global_thread >= size) return;
  const int i = static_cast<int>(global_thread);
  int rest = i;
  int a_offset = 0;
  int b_offset = 0;
  for (int d = kMaxRank - 1; d >= 0; --d) {
    const int coordinate = rest % indexing.out_sizes[d];
    rest /= indexing.out_sizes[d];
    a_offset += coordinate * indexing.a_strides[d];
    b_offset += coordinate * indexing.b_strides[d];
  }
  const T a_value = a[a_offset];
  const T b_value = b[b_offset];
  out[i] = add_elements(a_value, b_value);
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
