// Thread indexing: the output tensor as cells coloured by the block, warp or
// thread that wrote them. Elements written 0 or 2+ times stand out; big
// tensors are drawn as tiles when zoomed out (CoveragePyramid keeps the
// anomalies visible at every zoom).
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "imgui_colours.hpp"
#include "panels.hpp"

namespace cudalab::viewer {
namespace {

constexpr double kMaxTilesPerFrame = 150000;  // keeps software GL and big tensors responsive
constexpr std::uint64_t kMaxLegendSwatches = 48;

void swatch(ImU32 colour, const char* tooltip) {
  const float s = ImGui::GetFontSize();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton(tooltip, ImVec2(s, s));
  ImGui::GetWindowDrawList()->AddRectFilled(p, ImVec2(p.x + s, p.y + s), colour);
  ImGui::GetWindowDrawList()->AddRect(p, ImVec2(p.x + s, p.y + s), kSwatchOutline);
  tooltip_for_last_item(tooltip);
}

void toolbar(UiState& state, const LoadedRun& loaded) {
  IndexingState& ix = state.indexing;
  ImGui::TextUnformatted("colour by");
  ImGui::SameLine();
  int mode = static_cast<int>(ix.colour_by);
  ImGui::RadioButton("block (B)", &mode, 0);
  ImGui::SameLine();
  ImGui::RadioButton("warp (W)", &mode, 1);
  ImGui::SameLine();
  ImGui::RadioButton("thread (T)", &mode, 2);
  ix.colour_by = static_cast<ColourBy>(mode);
  ImGui::SameLine();
  if (ImGui::Button("fit (F)")) ix.fit_pending = true;
  if (!ix.selection.empty()) {
    ImGui::SameLine();
    std::string what = "selected:";
    if (ix.selection.block) what += " block " + std::to_string(*ix.selection.block);
    if (ix.selection.warp) what += " warp " + std::to_string(*ix.selection.warp);
    ImGui::TextUnformatted(what.c_str());
    ImGui::SameLine();
    if (ImGui::SmallButton("clear (Esc)")) ix.selection = {};
  }

  const CoverageStats& s = loaded.stats;
  const KernelRun& run = loaded.run;
  ImGui::Text("%llu x %llu = %llu elements:", static_cast<unsigned long long>(run.rows),
              static_cast<unsigned long long>(run.cols),
              static_cast<unsigned long long>(run.elements()));
  ImGui::SameLine();
  ImGui::Text("%llu written once,", static_cast<unsigned long long>(s.once));
  ImGui::SameLine();
  ImGui::TextColored(s.never ? ImVec4(1, 0.6f, 0.6f, 1) : ImGui::GetStyle().Colors[ImGuiCol_Text],
                     "%llu never,", static_cast<unsigned long long>(s.never));
  ImGui::SameLine();
  ImGui::TextColored(s.several ? ImVec4(1, 0.4f, 0.4f, 1) : ImGui::GetStyle().Colors[ImGuiCol_Text],
                     "%llu twice or more", static_cast<unsigned long long>(s.several));
}

void legend(UiState& state, const KernelRun& run) {
  IndexingState& ix = state.indexing;
  swatch(to_imgui(never_written()), "never written");
  ImGui::SameLine();
  ImGui::TextUnformatted("never");
  ImGui::SameLine();
  swatch(to_imgui(written_twice()), "written 2+ times");
  ImGui::SameLine();
  ImGui::TextUnformatted("2+ times   ");
  ImGui::SameLine();

  if (ix.colour_by == ColourBy::kThread) {
    const float w = ImGui::GetFontSize() * 12, h = ImGui::GetFontSize();
    ImGui::Text("threadIdx 0");
    ImGui::SameLine();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const int steps = 48;
    for (int i = 0; i < steps; ++i)
      dl->AddRectFilled(ImVec2(p.x + w * i / steps, p.y),
                        ImVec2(p.x + w * (i + 1) / steps, p.y + h),
                        to_imgui(ramp(i / (steps - 1.0))));
    ImGui::Dummy(ImVec2(w, h));
    ImGui::SameLine();
    ImGui::Text("%llu", static_cast<unsigned long long>(run.threads_per_block() - 1));
    return;
  }
  const bool blocks = ix.colour_by == ColourBy::kBlock;
  ImGui::TextUnformatted(blocks ? "block" : "warp");
  const float room = ImGui::GetContentRegionAvail().x - ImGui::GetFontSize() * 28;
  const auto fits = static_cast<std::uint64_t>(std::max(room / (ImGui::GetFontSize() + 2), 1.0f));
  const std::uint64_t n = std::min({legend_entries(run, ix.colour_by), kMaxLegendSwatches, fits});
  for (std::uint64_t id = 0; id < n; ++id) {
    ImGui::SameLine(0, 2);
    const std::string tip =
        (blocks ? "block " : "warp ") + std::to_string(id) + " (click to select)";
    swatch(to_imgui(legend_colour(run, ix.colour_by, id)), tip.c_str());
    if (ImGui::IsItemClicked()) {
      if (blocks)
        ix.selection = {static_cast<std::uint32_t>(id), std::nullopt};
      else
        ix.selection = {std::nullopt, static_cast<std::uint32_t>(id)};
    }
  }
  if (legend_entries(run, ix.colour_by) > n) {
    ImGui::SameLine();
    ImGui::TextColored(ImVec4(0.63f, 0.65f, 0.69f, 1), "... (colours repeat every %d)",
                       kCategoricalColours);
  }
}

void handle_mouse(UiState& state, const LoadedRun& loaded, ImVec2 origin) {
  IndexingState& ix = state.indexing;
  const ImGuiIO& io = ImGui::GetIO();
  const double mx = io.MousePos.x - origin.x, my = io.MousePos.y - origin.y;
  if (ImGui::IsItemHovered() && io.MouseWheel != 0)
    zoom_at(ix.view, std::pow(1.25, io.MouseWheel), mx, my);
  if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left)) {
    ix.view.origin_x += io.MouseDelta.x;
    ix.view.origin_y += io.MouseDelta.y;
  }
  if (!ImGui::IsItemHovered()) return;
  const auto index = element_at(loaded.run, ix.view, mx, my);
  if (!index) return;
  const ElementWrites& e = loaded.run.writes[*index];
  ImGui::BeginTooltip();
  ImGui::TextUnformatted(describe_element(loaded.run, *index).c_str());
  if (e.count >= 1)
    ImGui::TextColored(ImVec4(0.63f, 0.65f, 0.69f, 1),
                       "click: select its block, shift-click: its warp");
  ImGui::EndTooltip();
  const bool clicked = ImGui::IsMouseReleased(ImGuiMouseButton_Left) &&
                       ImGui::GetMouseDragDelta(ImGuiMouseButton_Left).x == 0 &&
                       ImGui::GetMouseDragDelta(ImGuiMouseButton_Left).y == 0;
  if (clicked && e.count >= 1) {
    ix.selection.block = e.first.block;
    ix.selection.warp = io.KeyShift ? std::optional<std::uint32_t>(e.first.warp()) : std::nullopt;
  }
}

void canvas(UiState& state, const LoadedRun& loaded) {
  IndexingState& ix = state.indexing;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 size(std::max(ImGui::GetContentRegionAvail().x, 64.0f),
                    std::max(ImGui::GetContentRegionAvail().y, 64.0f));
  if (ix.fit_pending) {
    ix.view = fit_view(loaded.run.rows, loaded.run.cols, size.x, size.y);
    ix.fit_pending = false;
  }
  ImGui::InvisibleButton("tensor", size);
  handle_mouse(state, loaded, origin);
  state.layout.indexing_canvas = {origin.x, origin.y, origin.x + size.x, origin.y + size.y};

  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 end(origin.x + size.x, origin.y + size.y);
  dl->PushClipRect(origin, end, true);
  dl->AddRectFilled(origin, end, kCanvasBackground);

  const KernelRun& run = loaded.run;
  int level = level_for_zoom(ix.view.pixels_per_element);
  TileRange r = visible_tiles(ix.view, loaded.pyramid, level, size.x, size.y);
  while (level + 1 < loaded.pyramid.levels() &&
         double(r.row_end - r.row_begin) * double(r.col_end - r.col_begin) > kMaxTilesPerFrame) {
    ++level;
    r = visible_tiles(ix.view, loaded.pyramid, level, size.x, size.y);
  }
  const double tile_px = ix.view.pixels_per_element * std::ldexp(1.0, level);
  const float gap = tile_px >= 6 ? 1.0f : 0.0f;
  const double right = ix.view.origin_x + ix.view.pixels_per_element * double(run.cols);
  const double bottom = ix.view.origin_y + ix.view.pixels_per_element * double(run.rows);
  for (std::uint64_t tr = r.row_begin; tr < r.row_end; ++tr) {
    const double y0 = ix.view.origin_y + tile_px * double(tr);
    const double y1 = std::min(y0 + tile_px, bottom);
    for (std::uint64_t tc = r.col_begin; tc < r.col_end; ++tc) {
      const double x0 = ix.view.origin_x + tile_px * double(tc);
      const double x1 = std::min(x0 + tile_px, right);
      const Rgba c = tile_colour(run, loaded.pyramid, level, tr, tc, ix.colour_by, ix.selection);
      dl->AddRectFilled(ImVec2(origin.x + float(x0), origin.y + float(y0)),
                        ImVec2(origin.x + float(x1) - gap, origin.y + float(y1) - gap),
                        to_imgui(c));
    }
  }
  if (level > 0) {
    char note[96];
    std::snprintf(note, sizeof note, "zoomed out: one tile = %llux%llu elements", 1ull << level,
                  1ull << level);
    dl->AddText(ImVec2(origin.x + 6, end.y - ImGui::GetFontSize() - 6), kMutedText, note);
  }
  dl->PopClipRect();
}

}  // namespace

void draw_indexing_panel(UiState& state) {
  const bool said = unfinished_message(state, Panel::kIndexing);
  if (!state.current) {
    if (!said) ImGui::TextUnformatted("No run yet: pick a version and press Run.");
    return;
  }
  const LoadedRun& loaded = *state.current;
  toolbar(state, loaded);
  legend(state, loaded.run);
  canvas(state, loaded);
}

}  // namespace cudalab::viewer
