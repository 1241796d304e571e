// Tensor-core fragments: the A, B and C/D matrices of one mma.sync side by
// side, each element coloured by the lane that holds it and labelled with
// the lane and its register. Hovering (or clicking) an element picks out
// every element its lane holds, in all three matrices.
#include <imgui.h>

#include <algorithm>
#include <cfloat>

#include "imgui_colours.hpp"
#include "panels.hpp"

namespace cudalab::viewer {
namespace {

constexpr ImU32 kCellText = IM_COL32(20, 20, 25, 255);

void shape_choice(UiState& state) {
  const std::int64_t k = state.fragments ? state.fragments->k() : 16;
  if (ImGui::RadioButton("m16n8k16 (fp16, bf16)", k == 16)) set_lab_parameter(state, "mma_k", 16);
  ImGui::SameLine();
  if (ImGui::RadioButton("m16n8k8 (tf32)", k == 8)) set_lab_parameter(state, "mma_k", 8);
}

// Draws one matrix with its cells `cell` pixels wide; returns the cells' area
// and sets `hovered` to the element under the mouse.
Rect draw_matrix(const FragmentMatrix& m, ImVec2 origin, float cell, std::optional<int> active,
                 std::optional<std::pair<int, int>>& hovered) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float font = ImGui::GetFontSize();
  const std::string title =
      m.name + " (" + std::to_string(m.rows) + " x " + std::to_string(m.cols) + ")";
  dl->AddText(origin, ImGui::GetColorU32(ImGuiCol_Text), title.c_str());
  const Rect area{origin.x, origin.y + font * 1.4f, origin.x + cell * m.cols,
                  origin.y + font * 1.4f + cell * m.rows};
  ImFont* small = ImGui::GetFont();
  const float small_size = std::min(font, cell * 0.4f);
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  for (int r = 0; r < m.rows; ++r)
    for (int c = 0; c < m.cols; ++c) {
      const FragmentOwner& o = m.at(r, c);
      const ImVec2 p0(area.x0 + cell * c, area.y0 + cell * r);
      const ImVec2 p1(p0.x + cell - 1, p0.y + cell - 1);
      dl->AddRectFilled(p0, p1, to_imgui(fragment_cell_colour(o.lane, active)));
      const std::string lane = std::to_string(o.lane), reg = register_label(m, o);
      const ImVec2 lane_size = small->CalcTextSizeA(small_size, FLT_MAX, 0, lane.c_str());
      const ImVec2 reg_size = small->CalcTextSizeA(small_size, FLT_MAX, 0, reg.c_str());
      const float top = p0.y + (cell - lane_size.y - reg_size.y) / 2;
      dl->AddText(small, small_size, ImVec2(p0.x + (cell - lane_size.x) / 2, top), kCellText,
                  lane.c_str());
      dl->AddText(small, small_size, ImVec2(p0.x + (cell - reg_size.x) / 2, top + lane_size.y),
                  kCellText, reg.c_str());
      if (mouse.x >= p0.x && mouse.x < p0.x + cell && mouse.y >= p0.y && mouse.y < p0.y + cell)
        hovered = std::pair{r, c};
    }
  return area;
}

void lane_summary(const FragmentLayout& layout, int lane) {
  ImGui::Text("lane %d (group %d, thread %d in its group) holds:", lane, lane / 4, lane % 4);
  for (const FragmentMatrix* m : {&layout.a, &layout.b, &layout.c}) {
    std::string line = "  " + m->name + ":";
    for (const auto& [r, c] : elements_of_lane(*m, lane))
      line += "  " + register_label(*m, m->at(r, c)) + " = [" + std::to_string(r) + "][" +
              std::to_string(c) + "]";
    ImGui::TextUnformatted(line.c_str());
  }
}

}  // namespace

void draw_fragment_panel(UiState& state) {
  state.layout.fragment_matrices.clear();
  shape_choice(state);
  const bool said = unfinished_message(state, Panel::kFragments);
  if (!state.fragments) {
    if (!said) ImGui::TextUnformatted("No layout yet: press Run.");
    return;
  }
  const FragmentLayout& layout = *state.fragments;
  FragmentState& view = state.fragment_view;
  ImGui::TextUnformatted(layout.instruction.c_str());
  lab_note(state, View::kFragments);

  const float font = ImGui::GetFontSize();
  const FragmentMatrix* matrices[] = {&layout.a, &layout.b, &layout.c};
  const float gap = font * 1.5f;
  int columns = 0;
  for (const FragmentMatrix* m : matrices) columns += m->cols;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float summary_h = font * 7.5f;  // the lane summary: 4 lines and spacing
  const float cell = std::clamp(
      std::min((avail.x - 2 * gap) / columns, (avail.y - summary_h - font * 1.6f) / layout.a.rows),
      font * 1.2f, font * 2.6f);
  ImVec2 origin = ImGui::GetCursorScreenPos();
  origin.y += font * 0.4f;
  const std::optional<int> active = view.hovered_lane ? view.hovered_lane : view.selected_lane;
  std::optional<std::pair<int, int>> hovered;
  const FragmentMatrix* hovered_matrix = nullptr;
  float height = 0;
  for (const FragmentMatrix* m : matrices) {
    std::optional<std::pair<int, int>> here;
    const Rect area = draw_matrix(*m, origin, cell, active, here);
    if (here) hovered = here, hovered_matrix = m;
    state.layout.fragment_matrices.push_back(area);
    height = std::max(height, area.y1 - ImGui::GetCursorScreenPos().y);
    origin.x = area.x1 + gap;
  }
  ImGui::Dummy(ImVec2(origin.x - ImGui::GetCursorScreenPos().x, height + font * 0.5f));

  view.hovered_lane.reset();
  if (hovered && ImGui::IsWindowHovered()) {
    const int lane = hovered_matrix->at(hovered->first, hovered->second).lane;
    view.hovered_lane = lane;
    ImGui::BeginTooltip();
    ImGui::TextUnformatted(
        describe_element(*hovered_matrix, hovered->first, hovered->second).c_str());
    ImGui::EndTooltip();
    if (ImGui::IsMouseClicked(ImGuiMouseButton_Left))
      view.selected_lane = view.selected_lane == lane ? std::nullopt : std::optional<int>(lane);
  }
  if (const auto lane = view.hovered_lane ? view.hovered_lane : view.selected_lane)
    lane_summary(layout, *lane);
  else
    ImGui::TextColored(ImVec4(0.63f, 0.65f, 0.69f, 1),
                       "Hover an element to see its lane's share; click to keep it.");
}

}  // namespace cudalab::viewer
