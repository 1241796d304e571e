#include "tile_walk_model.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace cudalab::viewer {

std::size_t step_count(const TileWalk& walk) {
  std::size_t n = 0;
  for (const ProgramWalk& p : walk.programs) n = std::max(n, p.steps.size());
  return n;
}

std::vector<std::uint32_t> touches_at(const TileWalk& walk, std::size_t grid, std::size_t step) {
  const TileGrid& g = walk.grids.at(grid);
  std::vector<std::uint32_t> counts(std::size_t{g.rows} * g.cols, 0);
  const std::size_t shaded =
      walk.wave == 0 ? walk.programs.size() : std::min(walk.wave, walk.programs.size());
  for (std::size_t program = 0; program < shaded; ++program) {
    const ProgramWalk& p = walk.programs[program];
    if (step >= p.steps.size()) continue;
    for (const TileTouch& t : p.steps[step])
      if (t.grid == grid && t.row < g.rows && t.col < g.cols) ++counts[t.row * g.cols + t.col];
  }
  return counts;
}

bool touches(const TileWalk& walk, std::size_t program, std::size_t step, TileTouch tile) {
  if (program >= walk.programs.size() || step >= walk.programs[program].steps.size()) return false;
  const auto& touched = walk.programs[program].steps[step];
  return std::find(touched.begin(), touched.end(), tile) != touched.end();
}

std::vector<std::vector<TileTouch>> steps_from_trace(const std::vector<TileTouch>& trace) {
  std::vector<std::vector<TileTouch>> steps;
  for (const TileTouch& t : trace) {
    if (!steps.empty()) {
      auto& step = steps.back();
      if (std::find(step.begin(), step.end(), t) != step.end()) continue;  // same tile again
      const bool grid_taken = std::any_of(step.begin(), step.end(),
                                          [&](const TileTouch& u) { return u.grid == t.grid; });
      if (!grid_taken) {
        step.push_back(t);
        continue;
      }
    }
    steps.push_back({t});
  }
  return steps;
}

ProgramWalk program_walk(std::string name, const std::vector<TileGrid>& grids,
                         const std::vector<ElementAccess>& accesses) {
  ProgramWalk walk{std::move(name), {}, {}, 0};
  // Per step, per tile (in order of first touch): its distinct elements.
  std::vector<std::vector<std::pair<TileTouch, std::set<std::pair<std::uint64_t, std::uint64_t>>>>>
      steps;
  for (const ElementAccess& a : accesses) {
    const TileGrid& g = grids.at(a.grid);
    const std::uint32_t tile_rows = std::max(g.tile_rows, 1u),
                        tile_cols = std::max(g.tile_cols, 1u);
    const TileTouch tile{a.grid, static_cast<std::uint32_t>(a.row / tile_rows),
                         static_cast<std::uint32_t>(a.col / tile_cols)};
    if (steps.size() <= a.step) steps.resize(a.step + 1);
    auto& step = steps[a.step];
    auto it =
        std::find_if(step.begin(), step.end(), [&](const auto& t) { return t.first == tile; });
    if (it == step.end()) it = step.insert(step.end(), {tile, {}});
    it->second.insert({a.row, a.col});
    if (a.is_load) walk.bytes_loaded += a.bytes;
  }
  for (const auto& step : steps) {
    walk.steps.emplace_back();
    walk.elements.emplace_back();
    for (const auto& [tile, elements] : step) {
      walk.steps.back().push_back(tile);
      walk.elements.back().push_back(elements.size());
    }
  }
  return walk;
}

InsideFraction inside_fraction(const TileGrid& grid, std::uint32_t row, std::uint32_t col) {
  auto part = [](std::uint64_t elements, std::uint32_t tile, std::uint32_t index) {
    if (elements == 0 || tile == 0) return 1.0;
    const std::uint64_t first = std::uint64_t{index} * tile;
    if (first >= elements) return 0.0;
    return double(std::min<std::uint64_t>(elements - first, tile)) / tile;
  };
  return {part(grid.element_cols, grid.tile_cols, col),
          part(grid.element_rows, grid.tile_rows, row)};
}

std::optional<double> masked_fraction(const TileWalk& walk, std::size_t program, std::size_t step,
                                      TileTouch tile) {
  if (program >= walk.programs.size() || tile.grid >= walk.grids.size()) return std::nullopt;
  const ProgramWalk& p = walk.programs[program];
  if (step >= p.steps.size() || step >= p.elements.size()) return std::nullopt;
  const auto& touched = p.steps[step];
  const auto it = std::find(touched.begin(), touched.end(), tile);
  if (it == touched.end()) return std::nullopt;
  const TileGrid& g = walk.grids[tile.grid];
  const double size = double(g.tile_rows) * g.tile_cols;
  if (size == 0) return std::nullopt;
  const auto elements = p.elements[step][static_cast<std::size_t>(it - touched.begin())];
  return 1.0 - std::min(double(elements), size) / size;
}

std::optional<std::size_t> first_program_touching(const TileWalk& walk, std::size_t grid,
                                                  std::uint32_t row, std::uint32_t col) {
  const TileTouch tile{static_cast<std::uint32_t>(grid), row, col};
  for (std::size_t program = 0; program < walk.programs.size(); ++program)
    for (const auto& step : walk.programs[program].steps)
      if (std::find(step.begin(), step.end(), tile) != step.end()) return program;
  return std::nullopt;
}

double bytes_over_minimum(const TileWalk& walk, std::size_t program) {
  if (walk.minimum_bytes == 0 || program >= walk.programs.size()) return 0;
  return double(walk.programs[program].bytes_loaded) / double(walk.minimum_bytes);
}

double step_bar_fraction(const StepSeries& series, std::size_t step) {
  if (step >= series.values.size() || !std::isfinite(series.values[step])) return 0;
  double largest = 0;
  for (const double v : series.values)
    if (std::isfinite(v)) largest = std::max(largest, std::abs(v));
  return largest > 0 ? series.values[step] / largest : 0;
}

Rgba step_colour(std::size_t step, std::size_t steps) {
  return ramp(steps <= 1 ? 0.0 : double(step) / double(steps - 1));
}

Rgba tile_colour(std::uint32_t programs_touching, std::uint32_t most, bool selected) {
  if (selected) return kTileSelected;
  if (programs_touching == 0) return kTileIdle;
  // Teal when one program touches the tile, towards yellow as more share it.
  const double t = most <= 1 ? 0.0 : double(programs_touching - 1) / double(most - 1);
  return ramp(0.35 + 0.65 * t);
}

}  // namespace cudalab::viewer
