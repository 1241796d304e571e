// Tile walk: every matrix of a tiled kernel as a grid of tiles, side by
// side. At the chosen step, the selected program's tiles are orange; tiles
// other programs touch at that step are shaded by how many do (teal: one,
// yellow: the most), which is the reuse shared memory and L2 can exploit.
#include <imgui.h>

#include <algorithm>
#include <string>

#include "imgui_colours.hpp"
#include "panels.hpp"

namespace cudalab::viewer {
namespace {

void controls(TileWalkState& tw, const TileWalk& walk) {
  const int steps = static_cast<int>(step_count(walk));
  const int programs = static_cast<int>(walk.programs.size());
  int step = static_cast<int>(tw.step), program = static_cast<int>(tw.program);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
  ImGui::SliderInt("step (left/right)", &step, 0, std::max(steps - 1, 0));
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
  ImGui::SliderInt("program (up/down)", &program, 0, std::max(programs - 1, 0));
  tw.step = static_cast<std::size_t>(std::clamp(step, 0, std::max(steps - 1, 0)));
  tw.program = static_cast<std::size_t>(std::clamp(program, 0, std::max(programs - 1, 0)));
  if (tw.program < walk.programs.size())
    ImGui::Text("%s, step %zu of %d", walk.programs[tw.program].name.c_str(), tw.step + 1, steps);
}

Rect grid(ImDrawList* dl, const TileWalk& walk, std::size_t g, const TileWalkState& tw,
          ImVec2 origin, float cell) {
  const TileGrid& tiles = walk.grids[g];
  const auto counts = touches_at(walk, g, tw.step);
  const std::uint32_t most = counts.empty() ? 0 : *std::max_element(counts.begin(), counts.end());
  const float gap = cell >= 6 ? 1.0f : 0.0f;
  for (std::uint32_t r = 0; r < tiles.rows; ++r)
    for (std::uint32_t c = 0; c < tiles.cols; ++c) {
      const bool mine = touches(walk, tw.program, tw.step, {static_cast<std::uint32_t>(g), r, c});
      const Rgba colour = tile_colour(counts[r * tiles.cols + c], most, mine);
      const ImVec2 p0(origin.x + cell * c, origin.y + cell * r);
      dl->AddRectFilled(p0, ImVec2(p0.x + cell - gap, p0.y + cell - gap), to_imgui(colour));
    }
  dl->AddText(ImVec2(origin.x, origin.y - ImGui::GetFontSize() - 2), kMutedText,
              tiles.name.c_str());
  return {origin.x, origin.y, origin.x + cell * tiles.cols, origin.y + cell * tiles.rows};
}

}  // namespace

void draw_tile_walk_panel(UiState& state) {
  state.layout.tile_grids.clear();
  if (!state.tiles) {
    ImGui::TextUnformatted("No tile walk yet: press Run.");
    return;
  }
  const TileWalk& walk = *state.tiles;
  if (!walk.title.empty()) ImGui::TextWrapped("%s", walk.title.c_str());
  controls(state.tile_walk, walk);
  lab_note(state, View::kTiles);
  if (walk.grids.empty()) return;

  // One cell size for all grids, so that equal tiles look equal.
  const float font = ImGui::GetFontSize();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  std::uint32_t total_cols = 0, most_rows = 0;
  for (const TileGrid& g : walk.grids) {
    total_cols += g.cols;
    most_rows = std::max(most_rows, g.rows);
  }
  const float spacing = font * 2;
  const float cell =
      std::clamp(std::min((avail.x - spacing * walk.grids.size()) / std::max(total_cols, 1u),
                          (avail.y - font * 3) / std::max(most_rows, 1u)),
                 2.0f, font * 3);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  float x = origin.x;
  for (std::size_t g = 0; g < walk.grids.size(); ++g) {
    const Rect drawn = grid(dl, walk, g, state.tile_walk, ImVec2(x, origin.y + font * 1.4f), cell);
    state.layout.tile_grids.push_back(drawn);
    x = drawn.x1 + spacing;
  }
  ImGui::Dummy(ImVec2(x - origin.x, font * 1.4f + cell * most_rows));
}

}  // namespace cudalab::viewer
