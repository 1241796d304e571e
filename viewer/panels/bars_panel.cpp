// Bars against anchors (the "Timing" tab): each version's figure on one
// problem as a bar, the anchors measured in the same run (copy, PyTorch) as
// vertical lines. The figures come from a `./lab bench` result file,
// possibly recorded on another machine.
#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "imgui_colours.hpp"
#include "model/bars_model.hpp"
#include "panels.hpp"

namespace cudalab::viewer {
namespace {

Rect chart(UiState& state, const BarChart& c) {
  const float font = ImGui::GetFontSize();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  // Columns as wide as their longest text: version names such as
  // torch_fp16_reduced_precision_reduction must not run into the bars.
  float label_w = font * 6, text_w = font * 6;
  for (const Bar& b : c.bars) {
    label_w = std::max(label_w, ImGui::CalcTextSize(b.label.c_str()).x + font * 0.8f);
    text_w = std::max(text_w, ImGui::CalcTextSize(bar_text(c, b).c_str()).x + font);
  }
  const float bar_w = std::max(ImGui::GetContentRegionAvail().x - label_w - text_w, font * 10);
  const float bar_h = font * 1.5f, pitch = font * 2.1f;
  const float top = font * (0.6f + c.anchors.size());  // a line per anchor label
  const float height = top + pitch * c.bars.size();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const double scale = c.max_value > 0 ? bar_w / (c.max_value * 1.05) : 0;
  const float x0 = origin.x + label_w;

  for (std::size_t i = 0; i < c.bars.size(); ++i) {
    const Bar& b = c.bars[i];
    const float y = origin.y + top + pitch * i;
    dl->AddText(ImVec2(origin.x, y + (bar_h - font) / 2), ImGui::GetColorU32(ImGuiCol_Text),
                b.label.c_str());
    const float len = static_cast<float>(b.value * scale);
    dl->AddRectFilled(ImVec2(x0, y), ImVec2(x0 + std::max(len, 2.0f), y + bar_h),
                      to_imgui(kVersionBar));
    dl->AddText(ImVec2(x0 + bar_w + font * 0.5f, y + (bar_h - font) / 2),
                ImGui::GetColorU32(ImGuiCol_Text), bar_text(c, b).c_str());
  }
  // The anchors: a line each, its label on a row of its own beside it (the
  // side where it crosses no other line: bars_model's place_anchor_labels).
  std::vector<std::string> labels;
  std::vector<float> line_x, widths;
  for (const AnchorLine& anchor : c.anchors) {
    char label[128];
    std::snprintf(label, sizeof label, "%s %.4g %s", anchor.name.c_str(), anchor.value,
                  c.unit.c_str());
    labels.push_back(label);
    line_x.push_back(x0 + float(anchor.value * scale));
    widths.push_back(ImGui::CalcTextSize(label).x);
  }
  const auto spans =
      place_anchor_labels(line_x, widths, 4, origin.x, x0 + bar_w + text_w + font * 0.5f);
  state.layout.timing_anchor_x = line_x;
  state.layout.timing_anchor_labels.clear();
  for (std::size_t a = 0; a < c.anchors.size(); ++a) {
    const std::string& family = c.anchors[a].family;
    const ImU32 colour = family == "copy"      ? kAnchorCopy
                         : family == "PyTorch" ? kAnchorPytorch
                                               : kAnchorOther;
    const float y0 = origin.y + font * a;
    dl->AddLine(ImVec2(line_x[a], y0), ImVec2(line_x[a], origin.y + height), colour, 2.0f);
    dl->AddText(ImVec2(spans[a].x0, y0), colour, labels[a].c_str());
    state.layout.timing_anchor_labels.push_back({spans[a].x0, y0, spans[a].x1, y0 + font});
  }
  ImGui::Dummy(ImVec2(label_w + bar_w + text_w, height));
  return {x0, origin.y + top, x0 + bar_w, origin.y + height};
}

}  // namespace

void draw_bars_panel(UiState& state) {
  TimingState& t = state.timing;
  if (file_row("result file", t.results_path, t.error)) load_results(state, t.results_path);
  if (!t.result) {
    const LabSource* lab = state.lab_source();
    const std::string number = lab ? lab->title().substr(0, lab->title().find(' ')) : "NN";
    ImGui::Spacing();
    ImGui::TextWrapped(
        "No result file loaded. Run `./lab bench %s` on a machine with a GPU; it writes a result "
        "file you can copy here and open with `./lab view %s --results FILE` or the box above.",
        number.c_str(), number.c_str());
    state.layout.timing_chart = {};
    state.layout.timing_anchor_x.clear();
    state.layout.timing_anchor_labels.clear();
    return;
  }
  const BenchResult& r = *t.result;
  ImGui::Text("lab %s on %s, driver %s, %s", r.lab.c_str(), r.gpu.c_str(), r.driver.c_str(),
              r.date.c_str());
  const auto all_problems = problems(r);
  if (all_problems.empty()) {
    ImGui::TextUnformatted("the file holds no kernel measurements");
    return;
  }
  t.problem = std::min(t.problem, all_problems.size() - 1);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 20);
  if (ImGui::BeginCombo("problem", all_problems[t.problem].c_str())) {
    for (std::size_t i = 0; i < all_problems.size(); ++i)
      if (ImGui::Selectable(all_problems[i].c_str(), i == t.problem)) t.problem = i;
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  ImGui::TextColored(ImVec4(0.63f, 0.65f, 0.69f, 1), "(%zu problems)", all_problems.size());
  ImGui::Spacing();
  state.layout.timing_chart = chart(state, bars_for_problem(r, all_problems[t.problem]));
  ImGui::Spacing();
  lab_note(state, View::kBars);
}

}  // namespace cudalab::viewer
