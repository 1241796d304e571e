// Lab 05's tiled matmul as a tile walk, from the emulator's trace of one
// launch: each program (CTA) with the tiles of A and B it loaded at each K
// step and the tile of C it stored, every traced global access attributed to
// A, B or C by the device buffer it falls in.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cudalab/emu/recorder.hpp"
#include "model/tile_walk_model.hpp"

namespace cudalab::viewer::lab05 {

// C (m x n) = A (m x k) B (k x n), row-major, in tiles of (bm, bk), (bk, bn)
// and (bm, bn); A and B hold elements of `input_bytes` (2: fp16), C of 4.
struct MatmulShape {
  std::uint64_t m = 0, n = 0, k = 0;
  std::uint32_t bm = 0, bn = 0, bk = 0;
  std::uint32_t input_bytes = 2;
  std::uint64_t k_steps() const { return (k + bk - 1) / bk; }
};

// Where the three matrices lived in device memory during the launch (0: not
// known, e.g. a kernel that loaded neither A nor B: only C's stores walk).
struct MatmulBuffers {
  std::uintptr_t a = 0, b = 0, c = 0;
};

// A and B are the allocations alive during the launch that the kernel read
// and that have A's and B's sizes; C is given (Observation::output_address).
// When A and B have the same size (m == n) the assignment that makes each
// program touch fewer tiles per step wins: read the other way round, a
// (BM, BK) block of A spans several (BK, BN) tiles of B and back. nullopt
// when no such allocations were read.
std::optional<MatmulBuffers> find_matmul_buffers(const emu::LaunchRecord& launch, std::uintptr_t c,
                                                 const MatmulShape& shape);

// The walk: grids A, B, C; program p is block p of the launch. An access to A
// belongs to the K step of its column, one to B to that of its row, the
// store of C to the last step. Loads that fall in no matrix are ignored.
TileWalk matmul_walk(const emu::LaunchRecord& launch, const MatmulBuffers& buffers,
                     const MatmulShape& shape);

}  // namespace cudalab::viewer::lab05
