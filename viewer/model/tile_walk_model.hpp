// What the tile-walk view draws: the matrices of a tiled kernel as grids of
// tiles, and which tiles each program (a thread block, a Triton program)
// touches at each step of its loop. Tiled matmul: program (i, j) reads tile
// (i, k) of A and (k, j) of B at step k and writes tile (i, j) of C.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "palette.hpp"

namespace cudalab::viewer {

struct TileGrid {
  std::string name;                  // "A", "B", "C"
  std::uint32_t rows = 0, cols = 0;  // in tiles
};

struct TileTouch {
  std::uint32_t grid = 0;  // index into TileWalk::grids
  std::uint32_t row = 0, col = 0;
  friend bool operator==(const TileTouch&, const TileTouch&) = default;
};

struct ProgramWalk {
  std::string name;                           // "block (1,2,0)"
  std::vector<std::vector<TileTouch>> steps;  // steps[k]: the tiles touched at step k
};

struct TileWalk {
  std::string title;
  std::vector<TileGrid> grids;
  std::vector<ProgramWalk> programs;
};

// The longest walk: the steps the view can show.
std::size_t step_count(const TileWalk& walk);

// For every tile of `grid`, how many programs touch it at `step`
// (row-major, rows x cols entries): the reuse a cache or shared memory sees.
std::vector<std::uint32_t> touches_at(const TileWalk& walk, std::size_t grid, std::size_t step);

// Whether `program` touches tile (row, col) of `grid` at `step`.
bool touches(const TileWalk& walk, std::size_t program, std::size_t step, TileTouch tile);

// Builds a program's walk from the tiles it touched in order (a trace):
// a new step starts when the program touches a grid that the current step
// already holds a different tile of. Matmul's A0 B0 A1 B1 A2 B2 C gives
// steps {A0 B0} {A1 B1} {A2 B2 C}.
std::vector<std::vector<TileTouch>> steps_from_trace(const std::vector<TileTouch>& trace);

// The colour of a tile: the selected program's tiles stand out; tiles other
// programs touch at this step are shaded by how many do; the rest are idle.
inline constexpr Rgba kTileSelected{250, 170, 40, 255};
inline constexpr Rgba kTileIdle{70, 74, 84, 255};
Rgba tile_colour(std::uint32_t programs_touching, std::uint32_t most, bool selected);

}  // namespace cudalab::viewer
