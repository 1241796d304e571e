// Lab 05, exercise 5: the order in which programs take the tiles of C
// (Triton's tutorial 03, "L2 cache optimizations").
//
// Programs run in waves of as many as fit the GPU. Numbered row by row, the
// first wave computes one row of C tiles: it reads one row panel of A and
// every column panel of B. Grouped, the same number of programs covers a
// group_m-tall block of C tiles, column by column inside the group: fewer
// panels, more reuse from L2. On a 9 x 9 grid of tiles with 9 K-blocks, the
// first 9 programs load 90 blocks row by row and 54 grouped by 3.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "cudalab/kernel.hpp"

namespace lab05 {
inline namespace CUDALAB_BACKEND {

// The C tile (row m, column n of the grid of tiles) a program computes.
struct TileCoords {
  int m = 0;
  int n = 0;
};

// Program pid takes tile (pid / grid_n, pid % grid_n): row by row.
struct RowMajorOrder {
  __host__ __device__ TileCoords operator()(int pid, [[maybe_unused]] int grid_m,
                                            int grid_n) const {
    return {pid / grid_n, pid % grid_n};
  }
};

// Triton's grouped ordering: groups of group_m tile rows (the last group may
// be shorter), each walked column by column.
struct GroupedOrder {
  int group_m = 8;

  __host__ __device__ TileCoords operator()([[maybe_unused]] int pid, [[maybe_unused]] int grid_m,
                                            [[maybe_unused]] int grid_n) const {
    // TODO(ex5) begin, about 6 lines: the group of pid (group_m * grid_n
    // programs each), its first tile row, its height (at most group_m, fewer
    // in the last group), then m and n inside the group, m varying fastest.
    const int programs_per_group = group_m * grid_n;
    const int group = pid / programs_per_group;
    const int first_m = group * group_m;
    const int height = std::min(grid_m - first_m, group_m);
    const int in_group = pid % programs_per_group;
    return {first_m + in_group % height, in_group / height};
    // TODO(ex5) end
  }
};

// The cache model of the tutorial: a program computing tile (m, n) reads
// k_blocks blocks of A's row panel m and k_blocks blocks of B's column panel
// n; a panel read by an earlier program of the same wave is in cache. The
// blocks the first `wave` programs (0 .. wave - 1) load from memory.
template <class Order>
int first_wave_block_loads([[maybe_unused]] Order order, int grid_m, int grid_n, int k_blocks,
                           int wave) {
  if (grid_m <= 0 || grid_n <= 0 || k_blocks < 0 || wave < 0) {
    throw std::invalid_argument(
        "first_wave_block_loads: grid sizes must be > 0, k_blocks and wave >= 0");
  }
  // TODO(ex5) begin, about 9 lines: the distinct row panels and column
  // panels among order(pid, grid_m, grid_n) for pid < min(wave, grid_m *
  // grid_n), times k_blocks each.
  std::vector<bool> row_read(grid_m), column_read(grid_n);
  int panels = 0;
  for (int pid = 0; pid < std::min(wave, grid_m * grid_n); ++pid) {
    const TileCoords tile = order(pid, grid_m, grid_n);
    panels += row_read.at(tile.m) ? 0 : 1;
    panels += column_read.at(tile.n) ? 0 : 1;
    row_read[tile.m] = column_read[tile.n] = true;
  }
  return panels * k_blocks;
  // TODO(ex5) end
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab05
