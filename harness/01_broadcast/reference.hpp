// Lab 01's CPU references and test inputs, shared by the autograder (which
// `./lab run 01` runs too) and the benchmark. Written independently of the lab code: they walk
// the result's coordinates instead of using strides, so a mistake in the
// lab's stride logic cannot hide in the reference too.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend.hpp"
#include "cudalab/random.hpp"

namespace lab01::harness {

// a (x, y) += b (y), element by element.
inline std::vector<float> broadcast_sum_reference(std::vector<float> a, const std::vector<float>& b,
                                                  int x, int y) {
  for (int row = 0; row < x; ++row) {
    for (int column = 0; column < y; ++column) {
      a[static_cast<std::size_t>(row) * y + column] += b[static_cast<std::size_t>(column)];
    }
  }
  return a;
}

inline std::string to_string(const Shape& shape) {
  std::string text = "[";
  for (std::size_t d = 0; d < shape.size(); ++d) {
    text += (d == 0 ? "" : ", ") + std::to_string(shape[d]);
  }
  return text + "]";
}

inline std::size_t element_count(const Shape& shape) {
  std::size_t count = 1;
  for (std::int64_t size : shape) count *= static_cast<std::size_t>(size);
  return count;
}

// PyTorch's rule, for shapes the caller knows to be compatible.
inline Shape broadcast_result_shape(const Shape& a, const Shape& b) {
  const std::size_t rank = std::max(a.size(), b.size());
  Shape out(rank, 1);
  for (std::size_t d = 0; d < rank; ++d) {
    const std::int64_t size_a = d < rank - a.size() ? 1 : a[d - (rank - a.size())];
    const std::int64_t size_b = d < rank - b.size() ? 1 : b[d - (rank - b.size())];
    if (size_a != size_b && size_a != 1 && size_b != 1) {
      throw std::logic_error("test error: " + to_string(a) + " and " + to_string(b) +
                             " do not broadcast");
    }
    out[d] = size_a == 1 ? size_b : size_a;
  }
  return out;
}

// The flat index into a tensor of `shape` of the result coordinate `coordinate`
// (result rank), reading coordinate 0 along the tensor's size-1 and missing dims.
inline std::size_t broadcast_source_index(const Shape& shape,
                                          const std::vector<std::int64_t>& coordinate) {
  const std::size_t skip = coordinate.size() - shape.size();
  std::size_t index = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    const std::int64_t c = shape[d] == 1 ? 0 : coordinate[skip + d];
    index = index * static_cast<std::size_t>(shape[d]) + static_cast<std::size_t>(c);
  }
  return index;
}

// out = a + b with broadcasting; `add` adds two elements (fp16 needs its own).
template <class T, class Add>
std::vector<T> broadcast_add_reference(const std::vector<T>& a, const Shape& a_shape,
                                       const std::vector<T>& b, const Shape& b_shape, Add add) {
  const Shape out_shape = broadcast_result_shape(a_shape, b_shape);
  const std::size_t count = element_count(out_shape);
  std::vector<T> out(count);
  std::vector<std::int64_t> coordinate(out_shape.size(), 0);
  for (std::size_t i = 0; i < count; ++i) {
    out[i] = add(a[broadcast_source_index(a_shape, coordinate)],
                 b[broadcast_source_index(b_shape, coordinate)]);
    for (std::size_t d = out_shape.size(); d-- > 0;) {  // next coordinate, last dim fastest
      if (++coordinate[d] < out_shape[d]) break;
      coordinate[d] = 0;
    }
  }
  return out;
}

// Values for b whose magnitude is in [0.5, 2): adding b once, twice or never
// always gives a different float, so a missed or doubled add cannot pass.
inline std::vector<float> nonzero_values(cudalab::Random& rng, std::size_t n) {
  return rng.signed_uniform(n, 0.5f, 2.0f);
}

// The lecture's grid helper for any block size: one block per `block`
// elements, 2-D once there are more than `max_blocks_per_row` blocks (65535 in
// the lecture; smaller values force a 2-D grid on small inputs).
inline LaunchDims lecture_grid(std::size_t size, unsigned block,
                               std::size_t max_blocks_per_row = 65535) {
  const std::size_t blocks = std::max<std::size_t>(1, (size + block - 1) / block);
  LaunchDims launch;
  launch.block.x = block;
  launch.grid.x = static_cast<unsigned>(blocks);
  if (blocks > max_blocks_per_row) {
    launch.grid.x = static_cast<unsigned>(
        std::min<std::size_t>(max_blocks_per_row, std::ceil(std::sqrt(double(blocks)))));
    launch.grid.y = static_cast<unsigned>((blocks + launch.grid.x - 1) / launch.grid.x);
  }
  return launch;
}

}  // namespace lab01::harness
