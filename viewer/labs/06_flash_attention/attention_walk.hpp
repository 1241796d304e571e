// Lab 06's fused forward as a tile walk, from the emulator's trace of one
// launch (one head): each program (CTA, a block of Br queries) with the
// tiles of K and V it loaded, key tile by key tile, and so the tiles of the
// scores S = Q K^T it computed, which never reach memory. Each traced global
// access is placed in q, k, v or the output by the device buffer it falls
// in, so a kernel that loads tiles it should skip (or skips tiles it needs)
// shows it.
#pragma once

#include <cstdint>
#include <optional>

#include "cudalab/emu/recorder.hpp"
#include "model/tile_walk_model.hpp"

namespace cudalab::viewer::lab06 {

// One head of n queries and keys of d floats, in blocks of Br queries
// (query_rows) and tiles of Bc keys (key_rows), as Backend::flash_tile says.
struct AttentionShape {
  std::uint64_t n = 0, d = 0;
  std::uint32_t query_rows = 0, key_rows = 0;
  std::uint64_t query_blocks() const { return (n + query_rows - 1) / query_rows; }
  std::uint64_t key_tiles() const { return (n + key_rows - 1) / key_rows; }
};

// Where q, k, v and the output (o, then the log-sum-exp L) lived.
struct AttentionBuffers {
  std::uintptr_t q = 0, k = 0, v = 0, out = 0;
};

// q, k and v have one size (n x d floats), so their accesses tell them
// apart: of the allocations of that size the kernel read, q is the one whose
// reads span the fewest (program, key tile) pairs (a program reads only its
// own block of q, but every tile of K and V it visits), then k is the one
// read first. `out` is given (Observation::output_address). nullopt when the
// kernel read no allocation of that size.
std::optional<AttentionBuffers> find_attention_buffers(const emu::LaunchRecord& launch,
                                                       std::uintptr_t out,
                                                       const AttentionShape& shape);

// The grids, in this order.
enum AttentionGrid : std::uint32_t { kQ, kKTransposed, kV, kO, kS };

// The walk: grids Q (n x d in Br-row tiles), K^T (d x n in Bc-column
// tiles), V (n x d in Bc-row tiles), O (n x d in Br-row tiles) and S (n x n
// in Br x Bc tiles, last); program p is block p of the launch. A load of
// key j (of K or V) belongs to step j / Bc and puts the program's S tile
// (p, j / Bc) in that step; Q's block belongs to step 0, the stores of O to
// the program's last step. Accesses outside the four buffers are ignored.
TileWalk attention_walk(const emu::LaunchRecord& launch, const AttentionBuffers& buffers,
                        const AttentionShape& shape);

}  // namespace cudalab::viewer::lab06
