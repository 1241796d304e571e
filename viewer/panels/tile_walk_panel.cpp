// Tile walk: every matrix of a tiled kernel as a grid of tiles, side by
// side. At the chosen step, the selected program's tiles are orange; tiles
// other programs (of the first wave, where the lab names one) touch at that
// step are shaded by how many do (teal: one, yellow: the most), which is the
// reuse shared memory and L2 can exploit. The selected program's tiles of
// every step are framed in the step's colour; the part of an edge tile
// outside its matrix (never loaded) is hatched; a C tile shows the program
// that computes it (click: select that program). A walk may add figures per
// step (lab 06: m and l of one row), drawn as bars under the grids.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "imgui_colours.hpp"
#include "panels.hpp"

namespace cudalab::viewer {
namespace {

constexpr ImU32 kOutsideMatrix = IM_COL32(40, 42, 48, 255);
constexpr ImU32 kTileLabel = IM_COL32(235, 235, 240, 255);

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

std::string thousands(std::uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// The selected program's bytes against the minimum, and the worst program.
void bytes_summary(const TileWalk& walk, std::size_t program) {
  if (walk.minimum_bytes == 0 || program >= walk.programs.size()) return;
  const ProgramWalk& p = walk.programs[program];
  ImGui::Text("loads of this program: %s B; minimum for an interior program: %s B (%.2fx)",
              thousands(p.bytes_loaded).c_str(), thousands(walk.minimum_bytes).c_str(),
              bytes_over_minimum(walk, program));
  std::size_t worst = 0;
  for (std::size_t q = 1; q < walk.programs.size(); ++q)
    if (walk.programs[q].bytes_loaded > walk.programs[worst].bytes_loaded) worst = q;
  std::size_t shaded = walk.wave == 0 ? walk.programs.size() : walk.wave;
  shaded = std::min(shaded, walk.programs.size());
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kMutedText),
                     "most of any program: %s B (%.2fx, program %zu); shading counts programs "
                     "0 .. %zu",
                     thousands(walk.programs[worst].bytes_loaded).c_str(),
                     bytes_over_minimum(walk, worst), worst, shaded == 0 ? 0 : shaded - 1);
}

// Diagonal stripes over `r` out of 2 x 2 pixel squares: exact pixels in any
// renderer (anti-aliased lines would blend into the background).
void hatch(ImDrawList* dl, ImVec2 p0, ImVec2 p1) {
  if (p1.x - p0.x < 1 || p1.y - p0.y < 1) return;
  dl->AddRectFilled(p0, p1, kOutsideMatrix);
  dl->PushClipRect(p0, p1, true);
  const float x0 = std::floor(p0.x), y0 = std::floor(p0.y);
  for (float y = y0; y < p1.y; y += 2) {
    const float phase = std::fmod(y - y0, 8.0f);
    for (float x = x0 - 8 + phase; x < p1.x; x += 8)
      dl->AddRectFilled(ImVec2(x, y), ImVec2(x + 2, y + 2), to_imgui(kTileHatch));
  }
  dl->PopClipRect();
}

// The step at which `program` touches `tile`, if any (the first).
std::optional<std::size_t> step_touching(const TileWalk& walk, std::size_t program,
                                         TileTouch tile) {
  if (program >= walk.programs.size()) return std::nullopt;
  for (std::size_t s = 0; s < walk.programs[program].steps.size(); ++s)
    if (touches(walk, program, s, tile)) return s;
  return std::nullopt;
}

void tooltip(const TileWalk& walk, const TileWalkState& tw, TileTouch tile, std::uint32_t count) {
  const TileGrid& g = walk.grids[tile.grid];
  ImGui::BeginTooltip();
  ImGui::Text("%s tile (%u, %u)", g.name.c_str(), tile.row, tile.col);
  if (g.tile_rows > 0)
    ImGui::Text("elements [%llu, %llu) x [%llu, %llu) of %llu x %llu",
                static_cast<unsigned long long>(std::uint64_t{tile.row} * g.tile_rows),
                static_cast<unsigned long long>(std::uint64_t{tile.row + 1} * g.tile_rows),
                static_cast<unsigned long long>(std::uint64_t{tile.col} * g.tile_cols),
                static_cast<unsigned long long>(std::uint64_t{tile.col + 1} * g.tile_cols),
                static_cast<unsigned long long>(g.element_rows),
                static_cast<unsigned long long>(g.element_cols));
  ImGui::Text("shaded programs touching it at step %zu: %u", tw.step, count);
  if (const auto owner = first_program_touching(walk, tile.grid, tile.row, tile.col))
    ImGui::Text("first touched by %s", walk.programs[*owner].name.c_str());
  if (const auto s = step_touching(walk, tw.program, tile)) {
    ImGui::Text("the selected program touches it at step %zu", *s);
    if (const auto masked = masked_fraction(walk, tw.program, *s, tile))
      ImGui::Text("%.1f%% of the tile not accessed (masked out, or past the edge)", 100 * *masked);
  }
  ImGui::EndTooltip();
}

Rect grid(ImDrawList* dl, const TileWalk& walk, std::size_t g, TileWalkState& tw, ImVec2 origin,
          float cell) {
  const TileGrid& tiles = walk.grids[g];
  const auto counts = touches_at(walk, g, tw.step);
  const std::uint32_t most = counts.empty() ? 0 : *std::max_element(counts.begin(), counts.end());
  const float gap = cell >= 6 ? 1.0f : 0.0f;
  const float font = ImGui::GetFontSize();
  const bool labels = cell >= font * 2.2f;
  const std::size_t steps = step_count(walk);
  for (std::uint32_t r = 0; r < tiles.rows; ++r)
    for (std::uint32_t c = 0; c < tiles.cols; ++c) {
      const TileTouch tile{static_cast<std::uint32_t>(g), r, c};
      const bool mine = touches(walk, tw.program, tw.step, tile);
      const std::uint32_t count = counts[r * tiles.cols + c];
      const Rgba colour = tile_colour(count, most, mine);
      const ImVec2 p0(origin.x + cell * c, origin.y + cell * r);
      const ImVec2 p1(p0.x + cell - gap, p0.y + cell - gap);
      const InsideFraction inside = inside_fraction(tiles, r, c);
      const ImVec2 in1(p0.x + (cell - gap) * inside.cols, p0.y + (cell - gap) * inside.rows);
      dl->AddRectFilled(p0, in1, to_imgui(colour));
      hatch(dl, ImVec2(in1.x, p0.y), p1);
      hatch(dl, ImVec2(p0.x, in1.y), ImVec2(in1.x, p1.y));
      if (const auto s = step_touching(walk, tw.program, tile)) {
        dl->AddRect(p0, p1, to_imgui(step_colour(*s, steps)), 0, 0, 2.0f);
        if (labels && g + 1 < walk.grids.size()) {
          const std::string text = "k" + std::to_string(*s);
          dl->AddText(ImVec2(p1.x - ImGui::CalcTextSize(text.c_str()).x - 3, p1.y - font - 2),
                      kTileLabel, text.c_str());
        }
      }
      // The last grid is the output: each tile names the program computing it.
      if (labels && g + 1 == walk.grids.size())
        if (const auto owner = first_program_touching(walk, g, r, c)) {
          const std::string text = std::to_string(*owner);
          dl->AddText(ImVec2(p1.x - ImGui::CalcTextSize(text.c_str()).x - 3, p1.y - font - 2),
                      kTileLabel, text.c_str());
        }
      if (ImGui::IsMouseHoveringRect(p0, p1)) {
        tooltip(walk, tw, tile, count);
        if (ImGui::IsMouseClicked(ImGuiMouseButton_Left))
          if (const auto owner = first_program_touching(walk, g, r, c);
              owner && g + 1 == walk.grids.size())
            tw.program = *owner;
      }
    }
  dl->AddText(ImVec2(origin.x, origin.y - font - 2), kMutedText, tiles.name.c_str());
  return {origin.x, origin.y, origin.x + cell * tiles.cols, origin.y + cell * tiles.rows};
}

// Each per-step series as a row of bars, one per step in the step's colour,
// growing up (or down, for a negative value) from a baseline, the value
// written under it; the selected step's bar is outlined.
void step_series(ImDrawList* dl, const TileWalk& walk, std::size_t shown_step) {
  if (walk.step_series.empty()) return;
  const float font = ImGui::GetFontSize();
  ImGui::Spacing();
  if (!walk.step_series_title.empty()) ImGui::TextWrapped("%s", walk.step_series_title.c_str());
  const std::size_t steps = step_count(walk);
  const float pitch = font * 4.5f, half = font * 1.6f;
  for (const StepSeries& series : walk.step_series) {
    ImGui::TextUnformatted(series.name.c_str());
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const bool any_negative =
        std::any_of(series.values.begin(), series.values.end(), [](double v) { return v < 0; });
    // Room below the axis only when something grows down.
    const float axis = origin.y + half * 2;
    const float below = any_negative ? half * 2 : 0;
    for (std::size_t k = 0; k < series.values.size(); ++k) {
      const float x = origin.x + pitch * k;
      const float height = static_cast<float>(step_bar_fraction(series, k)) * half * 2;
      const ImVec2 p0(x, std::min(axis, axis - height)),
          p1(x + pitch - font, std::max(axis, axis - height));
      dl->AddRectFilled(p0, ImVec2(p1.x, std::max(p1.y, p0.y + 1)),
                        to_imgui(step_colour(k, std::max(steps, series.values.size()))));
      if (k == shown_step)
        dl->AddRect(ImVec2(x - 2, origin.y - 2), ImVec2(p1.x + 2, axis + below + 2), kTileLabel, 0,
                    0, 1.5f);
      char text[32];
      std::snprintf(text, sizeof text, "%.3g", series.values[k]);
      dl->AddText(ImVec2(x, axis + below + 3), kMutedText, text);
    }
    dl->AddLine(ImVec2(origin.x, axis), ImVec2(origin.x + pitch * series.values.size(), axis),
                kMutedText);
    ImGui::Dummy(ImVec2(pitch * series.values.size(), half * 2 + below + font * 1.4f));
  }
}

}  // namespace

void draw_tile_walk_panel(UiState& state) {
  state.layout.tile_grids.clear();
  const bool said = unfinished_message(state, Panel::kTiles);
  if (!state.tiles) {
    if (!said) ImGui::TextUnformatted("No tile walk yet: run a version that makes one.");
    return;
  }
  const TileWalk& walk = *state.tiles;
  if (!walk.title.empty()) ImGui::TextWrapped("%s", walk.title.c_str());
  controls(state.tile_walk, walk);
  bytes_summary(walk, state.tile_walk.program);
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
  // Room for the bars per step under the grids.
  const float series_h =
      walk.step_series.empty() ? 0.0f : font * (2 + 9.5f * walk.step_series.size());
  const float cell =
      std::clamp(std::min((avail.x - spacing * walk.grids.size()) / std::max(total_cols, 1u),
                          (avail.y - font * 3 - series_h) / std::max(most_rows, 1u)),
                 2.0f, font * 5);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  float x = origin.x;
  for (std::size_t g = 0; g < walk.grids.size(); ++g) {
    const Rect drawn = grid(dl, walk, g, state.tile_walk, ImVec2(x, origin.y + font * 1.4f), cell);
    state.layout.tile_grids.push_back(drawn);
    x = drawn.x1 + spacing;
  }
  ImGui::Dummy(ImVec2(x - origin.x, font * 1.4f + cell * most_rows));
  step_series(dl, walk, state.tile_walk.step);
}

}  // namespace cudalab::viewer
