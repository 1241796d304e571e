// TMA swizzle: the box a TMA load put in shared memory, one cell per
// element, coloured by the bank its first byte landed in
// (model/swizzle_model), and what reading it back 8 rows x 16 bytes at a time
// costs. The swizzle mode and element size are the run's parameters: picking
// one runs the kernel again, so the box shown is always the one recorded.
#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "imgui_colours.hpp"
#include "panels.hpp"

namespace cudalab::viewer {
namespace {

// Radio buttons for one of the lab's parameters; a click re-runs with it.
void parameter_choice(UiState& state, const char* label, const char* name,
                      std::initializer_list<std::pair<const char*, int>> choices, int current) {
  ImGui::TextUnformatted(label);
  for (const auto& [text, value] : choices) {
    ImGui::SameLine();
    if (ImGui::RadioButton(text, current == value)) set_lab_parameter(state, name, value);
  }
}

void read_costs(const SwizzleLayout& layout) {
  ImGui::TextWrapped("%s", describe_reads(layout).c_str());
  // The first 8 rows' reads, one per 16-byte column: enough to see the pattern.
  std::string line = "rows 0-7, wavefronts per 16-byte column:";
  for (const ColumnRead& read : layout.reads) {
    if (read.first_row != 0) break;
    line += " " + std::to_string(read.ways);
  }
  if (!layout.reads.empty()) ImGui::TextUnformatted(line.c_str());
}

}  // namespace

void draw_swizzle_panel(UiState& state) {
  state.layout.swizzle_grid = {};
  const bool said = unfinished_message(state, Panel::kSwizzle);
  if (!state.swizzle) {
    if (!said) ImGui::TextUnformatted("No box yet: press Run.");
    return;
  }
  const SwizzleLayout& layout = *state.swizzle;
  const SwizzleBox& box = layout.box;
  ImGui::Text("a %u x %u box of %u-byte elements at shared byte %u, %s", box.rows, box.cols,
              box.element_bytes, box.shared_offset,
              box.swizzle_bytes ? (std::to_string(box.swizzle_bytes) + "-byte swizzle").c_str()
                                : "no swizzle");
  parameter_choice(state, "swizzle:", "swizzle",
                   {{"none", 0}, {"32 B", 32}, {"64 B", 64}, {"128 B", 128}},
                   static_cast<int>(box.swizzle_bytes));
  ImGui::SameLine(0, ImGui::GetFontSize() * 2);
  parameter_choice(state, "element:", "element_bytes", {{"2 B", 2}, {"4 B", 4}},
                   static_cast<int>(box.element_bytes));
  if (!layout.not_on_a_gpu.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, to_imgui(kUnfinishedText));
    ImGui::TextWrapped("%s", layout.not_on_a_gpu.c_str());
    ImGui::PopStyleColor();
  }
  read_costs(layout);
  lab_note(state, View::kSwizzle);

  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float cell = std::clamp(std::min(avail.x / float(box.cols), avail.y / float(box.rows)),
                                1.0f, ImGui::GetFontSize() * 1.5f);
  const Rect grid{origin.x, origin.y, origin.x + cell * float(box.cols),
                  origin.y + cell * float(box.rows)};
  ImGui::InvisibleButton("swizzle", ImVec2(std::max(grid.width(), 1.0f), grid.height()));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (unsigned r = 0; r < box.rows; ++r)
    for (unsigned c = 0; c < box.cols; ++c) {
      const ImVec2 p(grid.x0 + cell * float(c), grid.y0 + cell * float(r));
      dl->AddRectFilled(p, ImVec2(p.x + cell, p.y + cell),
                        to_imgui(bank_colour(layout.bank(r, c))));
    }
  // Lines between the 8-row groups and the 16-byte columns a read covers.
  const float column = cell * 16.0f / float(box.element_bytes);
  for (float x = grid.x0 + column; x < grid.x1 - 0.5f; x += column)
    dl->AddLine(ImVec2(x, grid.y0), ImVec2(x, grid.y1), kGridLine);
  for (unsigned r = 8; r < box.rows; r += 8)
    dl->AddLine(ImVec2(grid.x0, grid.y0 + cell * float(r)),
                ImVec2(grid.x1, grid.y0 + cell * float(r)), kGridLine);
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  if (ImGui::IsItemHovered()) {
    const auto c = static_cast<unsigned>((mouse.x - grid.x0) / cell);
    const auto r = static_cast<unsigned>((mouse.y - grid.y0) / cell);
    if (r < box.rows && c < box.cols) tooltip_for_last_item(describe_element(layout, r, c).c_str());
  }
  state.layout.swizzle_grid = grid;
}

}  // namespace cudalab::viewer
