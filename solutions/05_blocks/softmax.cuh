// Lab 05, exercise 3: row softmax, one program per row (Triton's tutorial 02).
//
// softmax(x)_j = exp(x_j - max x) / sum_k exp(x_k - max x). Without
// subtracting the maximum, exp overflows to infinity for x near 89 and the
// row becomes NaN; with it, the largest term is exp(0) = 1. A fused program
// reads the row once into registers, reduces it twice (max, then sum) inside
// the CTA, and writes it once: 2 * 4 bytes per element, what a copy moves.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "cudalab/tile/tile.hpp"

namespace lab05 {
inline namespace CUDALAB_BACKEND {

namespace tile = cudalab::tile;

// Rows up to this many columns fit one program's registers (128 per thread).
inline constexpr int kMaxSoftmaxColumns = 16384;

// Row program_id(0) of x (columns wide, rows x_row_stride apart) into the
// same row of out (out_row_stride apart). Block is a power of two >= columns.
template <int Block>
struct SoftmaxProgram {
  __device__ void operator()([[maybe_unused]] const float* x, [[maybe_unused]] int x_row_stride,
                             [[maybe_unused]] float* out, [[maybe_unused]] int out_row_stride,
                             [[maybe_unused]] int columns) const {
    // TODO(ex3) begin, about 10 lines: this program's row and its start in x
    // and in out (64-bit row * stride); load the row (mask the columns, `other` -infinity: it
    // must not win the max nor add to the sum), subtract its tile::max,
    // tile::exp, divide by the tile::sum, store under the mask.
    const std::int64_t row = tile::program_id(0);
    const float* x_row = x + row * x_row_stride;
    float* out_row = out + row * out_row_stride;
    const auto cols = tile::arange<Block>();
    const auto mask = cols < columns;
    const auto values = tile::load(x_row, cols, mask, -INFINITY);
    const auto numerator = tile::exp(values - tile::max(values));
    tile::store(out_row, cols, numerator / tile::sum(numerator), mask);
    // TODO(ex3) end
  }
};

namespace detail {

// Launches SoftmaxProgram<Block> for the smallest power-of-two Block (at
// least 32) that holds `columns`.
template <int Block>
void launch_softmax(const float* x, int rows, int columns, int x_row_stride, float* out,
                    int out_row_stride) {
  if constexpr (Block < kMaxSoftmaxColumns) {
    if (columns > Block) {
      launch_softmax<Block * 2>(x, rows, columns, x_row_stride, out, out_row_stride);
      return;
    }
  }
  tile::launch(SoftmaxProgram<Block>{}, rows, x, x_row_stride, out, out_row_stride, columns);
}

}  // namespace detail

inline void softmax(const float* x, int rows, int columns, int x_row_stride, float* out,
                    int out_row_stride) {
  if (rows < 0 || columns < 0 || columns > kMaxSoftmaxColumns) {
    throw std::invalid_argument(
        "softmax: " + std::to_string(rows) + " x " + std::to_string(columns) +
        ": rows must be >= 0 and columns in [0, " + std::to_string(kMaxSoftmaxColumns) + "]");
  }
  if (x_row_stride < columns || out_row_stride < columns) {
    throw std::invalid_argument("softmax: row strides (" + std::to_string(x_row_stride) + ", " +
                                std::to_string(out_row_stride) +
                                ") must be at least the row length " + std::to_string(columns));
  }
  if (rows == 0 || columns == 0) return;
  detail::launch_softmax<32>(x, rows, columns, x_row_stride, out, out_row_stride);
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab05
