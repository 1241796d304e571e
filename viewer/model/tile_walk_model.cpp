#include "tile_walk_model.hpp"

#include <algorithm>

namespace cudalab::viewer {

std::size_t step_count(const TileWalk& walk) {
  std::size_t n = 0;
  for (const ProgramWalk& p : walk.programs) n = std::max(n, p.steps.size());
  return n;
}

std::vector<std::uint32_t> touches_at(const TileWalk& walk, std::size_t grid, std::size_t step) {
  const TileGrid& g = walk.grids.at(grid);
  std::vector<std::uint32_t> counts(std::size_t{g.rows} * g.cols, 0);
  for (const ProgramWalk& p : walk.programs) {
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

Rgba tile_colour(std::uint32_t programs_touching, std::uint32_t most, bool selected) {
  if (selected) return kTileSelected;
  if (programs_touching == 0) return kTileIdle;
  // Teal when one program touches the tile, towards yellow as more share it.
  const double t = most <= 1 ? 0.0 : double(programs_touching - 1) / double(most - 1);
  return ramp(0.35 + 0.65 * t);
}

}  // namespace cudalab::viewer
