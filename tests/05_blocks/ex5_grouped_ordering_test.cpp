// Exercise 5: grouped ordering. The student's mapping runs on the device for
// every program of grids from 1 x 1 to 37 x 53 and group heights 1, 3, 8
// and taller than the grid: it must be a bijection onto the tiles and agree
// with Triton's formula (written out below). The cache model must give the
// tutorial's 90 and 54 blocks on a 9 x 9 grid with 9 K-blocks, and agree
// with an independent count elsewhere. End to end (no exercise): the grouped
// matmul gives the row-major matmul's bits.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cudalab/numerics.hpp"
#include "lab05_test_support.hpp"

namespace lab05 {
namespace {

using cudalab::harness::ran;
using harness::Ordering;

// Triton's tutorial 03, spelled out independently of the lab's code.
std::pair<int, int> triton_tile(int pid, int grid_m, int grid_n, int group_m) {
  const int group_id = pid / (group_m * grid_n);
  const int first_pid_m = group_id * group_m;
  const int group_size_m = std::min(grid_m - first_pid_m, group_m);
  const int pid_m = first_pid_m + (pid % (group_m * grid_n)) % group_size_m;
  const int pid_n = (pid % (group_m * grid_n)) / group_size_m;
  return {pid_m, pid_n};
}

constexpr int kGrids[][2] = {{1, 1}, {9, 9}, {7, 13}, {13, 7}, {37, 53}};
constexpr int kGroups[] = {1, 3, 8, 100};

class Ex5Grouped : public OnBackend {};

TEST_P(Ex5Grouped, Ex5_GroupedTilesAreTritonsBijection) {
  for (const auto& [grid_m, grid_n] : kGrids) {
    for (const int group_m : kGroups) {
      const std::string what = "grid " + std::to_string(grid_m) + " x " + std::to_string(grid_n) +
                               ", group_m " + std::to_string(group_m);
      std::vector<int> tiles(2 * std::size_t(grid_m) * grid_n, -1);
      ASSERT_TRUE(
          ran(backend().call(harness::entry::grouped_tiles, grid_m, grid_n, group_m, tiles)))
          << what;
      std::set<std::pair<int, int>> seen;
      for (int pid = 0; pid < grid_m * grid_n; ++pid) {
        const std::pair<int, int> tile{tiles[2 * pid], tiles[2 * pid + 1]};
        ASSERT_TRUE(tile.first >= 0 && tile.first < grid_m && tile.second >= 0 &&
                    tile.second < grid_n)
            << what << ": program " << pid << " got tile (" << tile.first << ", " << tile.second
            << "), outside the grid";
        ASSERT_TRUE(seen.insert(tile).second)
            << what << ": program " << pid << " got tile (" << tile.first << ", " << tile.second
            << "), which an earlier program took";
        ASSERT_EQ(tile, triton_tile(pid, grid_m, grid_n, group_m))
            << what << ": program " << pid << " (m varies fastest inside a group)";
      }
    }
  }
}

// Distinct panels among the first `wave` tiles of `tile_of`, times k_blocks.
template <class TileOf>
int independent_count(TileOf tile_of, int grid_m, int grid_n, int k_blocks, int wave) {
  std::set<int> rows, columns;
  for (int pid = 0; pid < std::min(wave, grid_m * grid_n); ++pid) {
    const auto [m, n] = tile_of(pid);
    rows.insert(m);
    columns.insert(n);
  }
  return static_cast<int>(rows.size() + columns.size()) * k_blocks;
}

TEST_P(Ex5Grouped, Ex5_CacheModelOfTheFirstWave) {
  EXPECT_EQ(backend().call(harness::entry::first_wave_block_loads, Ordering{false, 0}, 9, 9, 9, 9),
            90)
      << "row by row, the first 9 programs read 1 row panel of A and 9 column panels of B, 9 "
         "blocks each";
  EXPECT_EQ(backend().call(harness::entry::first_wave_block_loads, Ordering{true, 3}, 9, 9, 9, 9),
            54)
      << "grouped by 3, the first 9 programs read 3 row panels and 3 column panels";
  for (const auto& [grid_m, grid_n] : kGrids) {
    for (const int group_m : kGroups) {
      for (const int wave : {0, 1, 5, 64, 10000}) {
        const int k_blocks = 1 + wave % 7;
        const std::string what = "grid " + std::to_string(grid_m) + " x " + std::to_string(grid_n) +
                                 ", wave " + std::to_string(wave);
        EXPECT_EQ(
            backend().call(harness::entry::first_wave_block_loads, Ordering{true, group_m}, grid_m,
                           grid_n, k_blocks, wave),
            independent_count([&](int pid) { return triton_tile(pid, grid_m, grid_n, group_m); },
                              grid_m, grid_n, k_blocks, wave))
            << what << ", grouped by " << group_m;
        EXPECT_EQ(backend().call(harness::entry::first_wave_block_loads, Ordering{false, 0}, grid_m,
                                 grid_n, k_blocks, wave),
                  independent_count(
                      [&](int pid) {
                        return std::pair{pid / grid_n, pid % grid_n};
                      },
                      grid_m, grid_n, k_blocks, wave))
            << what << ", row by row";
        if (HasFailure()) return;
      }
    }
  }
}

CUDALAB_ON_ALL_BACKENDS(Ex5Grouped);

// End to end: the tile order changes which program computes a tile, never
// how, so grouped and row-major products agree bit for bit.
class GroupedMatmul : public OnBackend {};

TEST_P(GroupedMatmul, SameBitsAsRowMajor) {
  const int m = 200, n = 150, k = 40;
  std::vector<std::uint16_t> a, b;
  for (float v : rng_.uniform(std::size_t(m) * k, -1.0f, 1.0f)) {
    a.push_back(cudalab::numerics::fp32_to_fp16_bits(v));
  }
  for (float v : rng_.uniform(std::size_t(k) * n, -1.0f, 1.0f)) {
    b.push_back(cudalab::numerics::fp32_to_fp16_bits(v));
  }
  std::vector<float> row_major(std::size_t(m) * n), grouped(row_major.size());
  ASSERT_TRUE(
      ran(backend().call(harness::entry::matmul, m, n, k, a, b, row_major, Ordering{false, 0})));
  ASSERT_TRUE(
      ran(backend().call(harness::entry::matmul, m, n, k, a, b, grouped, Ordering{true, 3})));
  EXPECT_EQ(grouped, row_major);
}

CUDALAB_ON_ALL_BACKENDS(GroupedMatmul);

}  // namespace
}  // namespace lab05
