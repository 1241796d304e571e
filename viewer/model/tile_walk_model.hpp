// What the tile-walk view draws: the matrices of a tiled kernel as grids of
// tiles, and which tiles each program (a thread block, a Triton program)
// touches at each step of its loop. Tiled matmul: program (i, j) reads tile
// (i, k) of A and (k, j) of B at step k and writes tile (i, j) of C.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "palette.hpp"

namespace cudalab::viewer {

struct TileGrid {
  std::string name;                  // "A", "B", "C"
  std::uint32_t rows = 0, cols = 0;  // in tiles
  // The matrix in elements and one tile's shape, when known (0: every tile
  // is whole). A matrix that is not a multiple of the tile has ragged edge
  // tiles: their elements past the edge are never loaded (masked out).
  std::uint64_t element_rows = 0, element_cols = 0;
  std::uint32_t tile_rows = 0, tile_cols = 0;
};

struct TileTouch {
  std::uint32_t grid = 0;  // index into TileWalk::grids
  std::uint32_t row = 0, col = 0;
  friend bool operator==(const TileTouch&, const TileTouch&) = default;
};

struct ProgramWalk {
  std::string name;                           // "block (1,2,0)"
  std::vector<std::vector<TileTouch>> steps;  // steps[k]: the tiles touched at step k
  // From a trace (empty otherwise): elements[k][i] is how many distinct
  // elements of tile steps[k][i] the program accessed.
  std::vector<std::vector<std::uint64_t>> elements;
  std::uint64_t bytes_loaded = 0;  // from a trace: what its global loads moved
};

// Figures of one thing per step, drawn as a row of bars under the grids in
// the steps' colours (lab 06: the running max m and sum l of one query row
// after each key tile).
struct StepSeries {
  std::string name;            // "m (running max)"
  std::vector<double> values;  // values[k]: after step k
};

struct TileWalk {
  std::string title;
  std::vector<TileGrid> grids;
  std::vector<ProgramWalk> programs;
  // The programs the reuse shading counts: the first `wave` (a wave of
  // programs running at once shares the cache); 0: all of them.
  std::size_t wave = 0;
  // What an interior program must load at least (0: not known), e.g. a tiled
  // matmul's (BM*K + K*BN) * element size.
  std::uint64_t minimum_bytes = 0;
  // Optional per-step figures shown under the grids, with what they are of.
  std::string step_series_title;
  std::vector<StepSeries> step_series;
};

// One traced access of a program, already placed: the matrix (grid), the
// element's row and column in it, the step it belongs to (a matmul's K tile)
// and whether it was a load.
struct ElementAccess {
  std::uint32_t grid = 0;
  std::uint64_t row = 0, col = 0;
  std::uint32_t step = 0;
  std::uint32_t bytes = 0;
  bool is_load = true;
};

// A program's walk from its placed accesses: per step the tiles touched (in
// order of first touch) with their distinct elements, and the bytes its
// loads moved. The grids must have their tile shapes.
ProgramWalk program_walk(std::string name, const std::vector<TileGrid>& grids,
                         const std::vector<ElementAccess>& accesses);

// The longest walk: the steps the view can show.
std::size_t step_count(const TileWalk& walk);

// For every tile of `grid`, how many programs (of the first walk.wave, or
// all) touch it at `step` (row-major, rows x cols entries): the reuse a
// cache or shared memory sees.
std::vector<std::uint32_t> touches_at(const TileWalk& walk, std::size_t grid, std::size_t step);

// Whether `program` touches tile (row, col) of `grid` at `step`.
bool touches(const TileWalk& walk, std::size_t program, std::size_t step, TileTouch tile);

// The part of tile (row, col) of `grid` inside the matrix, as fractions of
// the tile's width and height (1, 1 for a whole tile or an unknown shape).
struct InsideFraction {
  double cols = 1, rows = 1;
};
InsideFraction inside_fraction(const TileGrid& grid, std::uint32_t row, std::uint32_t col);

// The fraction of tile `tile` that `program` did not access at `step`
// (its masked-out elements; 1 - elements / tile size), or nullopt when the
// walk has no element counts or the program does not touch the tile then.
std::optional<double> masked_fraction(const TileWalk& walk, std::size_t program, std::size_t step,
                                      TileTouch tile);

// The first program that touches tile (row, col) of `grid` at any step (the
// program that computes a C tile), or nullopt.
std::optional<std::size_t> first_program_touching(const TileWalk& walk, std::size_t grid,
                                                  std::uint32_t row, std::uint32_t col);

// A program's bytes loaded against the walk's minimum (0 when unknown).
double bytes_over_minimum(const TileWalk& walk, std::size_t program);

// Builds a program's walk from the tiles it touched in order (a trace):
// a new step starts when the program touches a grid that the current step
// already holds a different tile of. Matmul's A0 B0 A1 B1 A2 B2 C gives
// steps {A0 B0} {A1 B1} {A2 B2 C}.
std::vector<std::vector<TileTouch>> steps_from_trace(const std::vector<TileTouch>& trace);

// The height of a step's bar as a fraction of the series' largest magnitude,
// signed (-1 .. 1; a bar grows down from the axis for a negative value).
// Non-finite values (m = -infinity before any key counted) give 0.
double step_bar_fraction(const StepSeries& series, std::size_t step);

// The colour of a tile: the selected program's tiles stand out; tiles other
// programs touch at this step are shaded by how many do; the rest are idle.
inline constexpr Rgba kTileSelected{250, 170, 40, 255};
inline constexpr Rgba kTileIdle{70, 74, 84, 255};
Rgba tile_colour(std::uint32_t programs_touching, std::uint32_t most, bool selected);
// The diagonal lines over the part of an edge tile outside the matrix.
inline constexpr Rgba kTileHatch{225, 80, 120, 255};
// The outline of the selected program's tiles at `step` of `steps` (its
// earlier and later K steps stay visible, coloured by step).
Rgba step_colour(std::size_t step, std::size_t steps);

}  // namespace cudalab::viewer
