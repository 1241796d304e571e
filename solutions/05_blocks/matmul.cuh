// Lab 05, exercise 4: a tiled matmul as a tile program (Triton's tutorial 03).
//
// C (m x n, fp32) = A (m x k) * B (k x n), fp16 inputs, row-major. Each
// program computes one kBlockM x kBlockN tile of C: it walks K in steps of
// kBlockK, loads a (kBlockM, kBlockK) block of A and a (kBlockK, kBlockN)
// block of B, and accumulates tile::dot into fp32. The K mask (`other` = 0)
// makes the tail of K add nothing; the rows and columns past the edge of A
// and B are wrapped with % m and % n as the tutorial does, so every load is
// in bounds and only the store needs a row and column mask.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "cudalab/tile/tile.hpp"
#include "grouped_ordering.cuh"

namespace lab05 {
inline namespace CUDALAB_BACKEND {

namespace tile = cudalab::tile;

inline constexpr int kBlockM = 128;
inline constexpr int kBlockN = 64;
inline constexpr int kBlockK = 32;

template <class Order>
struct MatmulProgram {
  Order order;

  __device__ void operator()([[maybe_unused]] const __half* a, [[maybe_unused]] const __half* b,
                             float* c, int m, int n, [[maybe_unused]] int k) const {
    const TileCoords tile_of_c =
        order(tile::program_id(0), tile::cdiv(m, kBlockM), tile::cdiv(n, kBlockN));
    const auto rows = tile_of_c.m * kBlockM + tile::arange<kBlockM>();  // (BM)
    const auto cols = tile_of_c.n * kBlockN + tile::arange<kBlockN>();  // (BN)
    tile::Accumulator<kBlockM, kBlockN> acc;  // (BM, BN) zeros, in the tensor core's layout
    // TODO(ex4) begin, about 9 lines: the wrapped rows % m and cols % n;
    // for each K step: the (BM, BK) offsets into A and (BK, BN) into B,
    // loads masked on k with other 0, acc = tile::dot(a_block, b_block, acc).
    const auto a_rows = rows % m;
    const auto b_cols = cols % n;
    for (int first_k = 0; first_k < k; first_k += kBlockK) {
      const auto ks = first_k + tile::arange<kBlockK>();  // (BK)
      const auto a_block = tile::load(a, tile::as_column(a_rows) * k + tile::as_row(ks),
                                      tile::as_row(ks < k), __half(0.0f));  // (BM, BK)
      const auto b_block = tile::load(b, tile::as_column(ks) * n + tile::as_row(b_cols),
                                      tile::as_column(ks < k), __half(0.0f));  // (BK, BN)
      acc = tile::dot(a_block, b_block, acc);
    }
    // TODO(ex4) end
    tile::store(c, tile::as_column(rows) * n + tile::as_row(cols), acc,
                tile::as_column(rows < m) & tile::as_row(cols < n));
  }
};

inline void check_matmul(int m, int n, int k) {
  const std::int64_t largest =
      std::max({std::int64_t{m} * k, std::int64_t{k} * n, std::int64_t{m} * n});
  if (m < 0 || n < 0 || k < 0 || largest > std::numeric_limits<int>::max()) {
    throw std::invalid_argument("matmul: " + std::to_string(m) + " x " + std::to_string(n) + " x " +
                                std::to_string(k) +
                                ": sizes must be >= 0 and each matrix's element count fit an int");
  }
}

template <class Order>
void launch_matmul(Order order, const __half* a, const __half* b, float* c, int m, int n, int k) {
  check_matmul(m, n, k);
  if (m == 0 || n == 0) return;
  const int programs = tile::cdiv(m, kBlockM) * tile::cdiv(n, kBlockN);
  tile::launch(MatmulProgram<Order>{order}, programs, a, b, c, m, n, k);
}

inline void matmul(const __half* a, const __half* b, float* c, int m, int n, int k) {
  launch_matmul(RowMajorOrder{}, a, b, c, m, n, k);
}

inline void matmul_grouped(const __half* a, const __half* b, float* c, int m, int n, int k,
                           int group_m) {
  if (group_m < 1) throw std::invalid_argument("matmul_grouped: group_m must be >= 1");
  launch_matmul(GroupedOrder{group_m}, a, b, c, m, n, k);
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab05
