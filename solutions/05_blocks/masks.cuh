// Lab 05, exercise 2: masks and `other`.
//
// A block has a power-of-two shape; the data rarely does. The mask says which
// elements exist: a masked-out element is never read or written, and a
// masked load puts `other` in its place. What `other` must be depends on what
// comes next: a sum wants 0, a maximum wants -infinity.
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

inline constexpr int kGatherBlock = 512;
// Column programs: kColumnBlock columns each, walking down kRowBlock rows at a time.
inline constexpr int kColumnBlock = 64;
inline constexpr int kRowBlock = 32;

// out[i] = x[i * stride] for i < n.
struct StridedGatherProgram {
  __device__ void operator()([[maybe_unused]] const float* x, [[maybe_unused]] int stride,
                             [[maybe_unused]] float* out, [[maybe_unused]] int n) const {
    // TODO(ex2) begin, about 4 lines: offsets of this program's block of
    // out, masked; the load reads x at offsets * stride.
    const auto offsets = tile::program_id(0) * kGatherBlock + tile::arange<kGatherBlock>();
    const auto mask = offsets < n;
    tile::store(out, offsets, tile::load(x, offsets * stride, mask), mask);
    // TODO(ex2) end
  }
};

// sums[c] = x[0][c] + x[1][c] + ... for the rows x columns row-major matrix x.
struct ColumnSumsProgram {
  __device__ void operator()([[maybe_unused]] const float* x, int rows, int columns,
                             float* sums) const {
    const auto cols = tile::program_id(0) * kColumnBlock + tile::arange<kColumnBlock>();
    auto total = tile::zeros<float, kColumnBlock>();
    for (int first_row = 0; first_row < rows; first_row += kRowBlock) {
      // TODO(ex2) begin, about 4 lines: the (kRowBlock, kColumnBlock) block
      // of x at first_row (offsets and a mask from rows and columns), loaded
      // with the `other` a sum needs, summed along axis 0 into total.
      const auto r = first_row + tile::arange<kRowBlock>();
      const auto mask = tile::as_column(r < rows) & tile::as_row(cols < columns);
      const auto block =
          tile::load(x, tile::as_column(r) * columns + tile::as_row(cols), mask, 0.0f);
      total += tile::sum<0>(block);
      // TODO(ex2) end
    }
    tile::store(sums, cols, total, cols < columns);
  }
};

// maxes[c] = the largest x[r][c] (-infinity for a matrix without rows).
struct ColumnMaxesProgram {
  __device__ void operator()([[maybe_unused]] const float* x, int rows, int columns,
                             float* maxes) const {
    const auto cols = tile::program_id(0) * kColumnBlock + tile::arange<kColumnBlock>();
    auto best = tile::full<float, kColumnBlock>(-INFINITY);
    for (int first_row = 0; first_row < rows; first_row += kRowBlock) {
      // TODO(ex2) begin, about 4 lines: as in ColumnSumsProgram, with the
      // `other` a maximum needs, and tile::max<0> / tile::maximum.
      const auto r = first_row + tile::arange<kRowBlock>();
      const auto mask = tile::as_column(r < rows) & tile::as_row(cols < columns);
      const auto block =
          tile::load(x, tile::as_column(r) * columns + tile::as_row(cols), mask, -INFINITY);
      best = tile::maximum(best, tile::max<0>(block));
      // TODO(ex2) end
    }
    tile::store(maxes, cols, best, cols < columns);
  }
};

inline void strided_gather(const float* x, int stride, float* out, int n) {
  if (n < 0 || stride < 0) throw std::invalid_argument("strided_gather: n and stride must be >= 0");
  if (n > 0 && std::int64_t{n - 1} * stride > std::numeric_limits<int>::max()) {
    throw std::invalid_argument(
        "strided_gather: (n - 1) * stride = " + std::to_string(std::int64_t{n - 1} * stride) +
        " does not fit the programs' int offsets");
  }
  tile::launch(StridedGatherProgram{}, tile::cdiv(n, kGatherBlock), x, stride, out, n);
}

inline void check_matrix(int rows, int columns, const char* what) {
  if (rows < 0 || columns < 0 || std::int64_t{rows} * columns > std::numeric_limits<int>::max()) {
    throw std::invalid_argument(std::string(what) + ": a " + std::to_string(rows) + " x " +
                                std::to_string(columns) +
                                " matrix: sizes must be >= 0 and the element count fit an int");
  }
}

inline void column_sums(const float* x, int rows, int columns, float* sums) {
  check_matrix(rows, columns, "column_sums");
  tile::launch(ColumnSumsProgram{}, tile::cdiv(columns, kColumnBlock), x, rows, columns, sums);
}

inline void column_maxes(const float* x, int rows, int columns, float* maxes) {
  check_matrix(rows, columns, "column_maxes");
  tile::launch(ColumnMaxesProgram{}, tile::cdiv(columns, kColumnBlock), x, rows, columns, maxes);
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab05
