// Lab 05's entry points (backend.hpp) bound to the lab's code, written once
// and compiled three times (by nvcc, and by the host compiler for the
// emulator and again for the tile interpreter, in units
// cmake/CudalabLab.cmake generates) inside the inline namespace
// CUDALAB_BACKEND.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend.hpp"
#include "cudalab/harness/device_call.hpp"
#include "grouped_ordering.cuh"
#include "masks.cuh"
#include "matmul.cuh"
#include "softmax.cuh"
#include "vector_add.cuh"

namespace lab05::harness {
inline namespace CUDALAB_BACKEND {

namespace tile = cudalab::tile;

// Writes the grouped tile of every program id (the student's GroupedOrder
// on the device).
struct GroupedTilesProgram {
  __device__ void operator()(GroupedOrder order, int grid_m, int grid_n, int* tiles) const {
    const int pid = tile::program_id(0);
    const TileCoords coords = order(pid, grid_m, grid_n);
    const auto which = tile::arange<2>();
    tile::store(tiles, 2 * pid + which, tile::where(which == 0, coords.m, coords.n));
  }
};

class LabBackend final : public cudalab::harness::EntryBackendFor<Backend> {
 public:
  LabBackend() {
    bind(entry::add, lab05::add);
    bind(entry::fused_activation, lab05::fused_activation);
    bind(entry::unfused_activation, lab05::unfused_activation);
    bind(entry::strided_gather, lab05::strided_gather);
    bind(entry::column_sums, lab05::column_sums);
    bind(entry::column_maxes, lab05::column_maxes);
    bind(entry::softmax, lab05::softmax);
    // Host bits, device __half: one layout.
    bind(entry::matmul, [](int m, int n, int k, const std::uint16_t* a, const std::uint16_t* b,
                           float* c, Ordering ordering) {
      const auto* a_half = reinterpret_cast<const __half*>(a);
      const auto* b_half = reinterpret_cast<const __half*>(b);
      if (ordering.grouped) {
        lab05::matmul_grouped(a_half, b_half, c, m, n, k, ordering.group_m);
      } else {
        lab05::matmul(a_half, b_half, c, m, n, k);
      }
    });
    bind(entry::matmul_tile, [] { return std::vector<int>{kBlockM, kBlockN, kBlockK}; });
    bind(entry::grouped_tiles, [](int grid_m, int grid_n, int group_m, int* tiles) {
      if (grid_m <= 0 || grid_n <= 0 || group_m <= 0) {
        throw std::invalid_argument("grouped_tiles: grid_m, grid_n and group_m must be > 0");
      }
      tile::launch(GroupedTilesProgram{}, grid_m * grid_n, GroupedOrder{group_m}, grid_m, grid_n,
                   tiles);
    });
    bind(entry::first_wave_block_loads,
         [](Ordering ordering, int grid_m, int grid_n, int k_blocks, int wave) {
           if (ordering.grouped) {
             return lab05::first_wave_block_loads(GroupedOrder{ordering.group_m}, grid_m, grid_n,
                                                  k_blocks, wave);
           }
           return lab05::first_wave_block_loads(RowMajorOrder{}, grid_m, grid_n, k_blocks, wave);
         });
  }
};

}  // namespace CUDALAB_BACKEND
}  // namespace lab05::harness
