// Traffic: the bytes each rank sent in the last run, one bar per rank split
// into the peers it sent to (a colour each), and the least an algorithm must
// send as a green vertical line. A ring sends exactly that, all to the next
// rank; a gather to rank 0 then a broadcast piles it onto rank 0's bar.
// Bars of other things (lab 06: bytes loaded and stored by naive and fused
// attention) name their parts, and may each carry a reference tick.
#include <imgui.h>

#include <algorithm>

#include "imgui_colours.hpp"
#include "model/traffic_model.hpp"
#include "panels.hpp"

namespace cudalab::viewer {
namespace {

void peer_legend(const TrafficChart& chart) {
  int peers = 0;
  for (const TrafficBar& bar : chart.bars)
    for (const TrafficPart& part : bar.parts) peers = std::max(peers, part.to + 1);
  const float s = ImGui::GetFontSize();
  ImGui::TextUnformatted(chart.legend_title.c_str());
  for (int to = 0; to < peers; ++to) {
    ImGui::SameLine(0, s);
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::GetWindowDrawList()->AddRectFilled(p, ImVec2(p.x + s, p.y + s),
                                              to_imgui(peer_colour(to)));
    ImGui::Dummy(ImVec2(s, s));
    ImGui::SameLine();
    ImGui::TextUnformatted(part_name(chart, to).c_str());
  }
}

}  // namespace

void draw_traffic_panel(UiState& state) {
  state.layout.traffic_bars.clear();
  const bool said = unfinished_message(state, Panel::kTraffic);
  if (!state.traffic) {
    if (!said) ImGui::TextUnformatted("No traffic yet: press Run.");
    return;
  }
  const TrafficChart& chart = *state.traffic;
  if (!chart.title.empty()) ImGui::TextWrapped("%s", chart.title.c_str());
  peer_legend(chart);
  lab_note(state, View::kTraffic);

  const float font = ImGui::GetFontSize();
  ImGui::Dummy(ImVec2(0, font * 1.2f));  // room for the ideal's label
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  float text_w = font * 8;
  for (const TrafficBar& bar : chart.bars)
    text_w = std::max(text_w, ImGui::CalcTextSize(bar_text(chart, bar).c_str()).x + font);
  const float label_w = font * 4.5f;
  const float bar_w = std::max(ImGui::GetContentRegionAvail().x - label_w - text_w, font * 10);
  const bool own_ideals = std::any_of(chart.bars.begin(), chart.bars.end(),
                                      [](const TrafficBar& bar) { return bar.ideal.has_value(); });
  const float bar_h = font * 1.5f, pitch = font * (own_ideals ? 3.3f : 2.1f);
  const float x0 = origin.x + label_w;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  for (std::size_t i = 0; i < chart.bars.size(); ++i) {
    const TrafficBar& bar = chart.bars[i];
    const float y = origin.y + pitch * i;
    dl->AddText(ImVec2(origin.x, y + (bar_h - font) / 2), text, bar.label.c_str());
    double done = 0;
    for (const TrafficPart& part : bar.parts) {
      const float a = x0 + float(bar_pixels(chart, done, bar_w));
      done += static_cast<double>(part.bytes);
      const float b = x0 + float(bar_pixels(chart, done, bar_w));
      dl->AddRectFilled(ImVec2(a, y), ImVec2(std::max(b - 1, a + 2), y + bar_h),
                        to_imgui(peer_colour(part.to)));
    }
    dl->AddText(ImVec2(x0 + bar_w + font * 0.5f, y + (bar_h - font) / 2), text,
                bar_text(chart, bar).c_str());
    if (bar.ideal) {  // the bar's own reference: a tick above it (not hiding a thin part)
      const float x = x0 + float(bar_pixels(chart, *bar.ideal, bar_w));
      const ImU32 colour = to_imgui(kIdealColour);
      dl->AddLine(ImVec2(x, y - font * 0.45f), ImVec2(x, y - 1), colour, 2.0f);
      const std::string label = bar.ideal_label + " = " + byte_text(*bar.ideal);
      dl->AddText(ImVec2(x0, y + bar_h + font * 0.15f), colour, label.c_str());
    }
    state.layout.traffic_bars.push_back(
        {x0, y, x0 + float(bar_pixels(chart, done, bar_w)), y + bar_h});
  }
  const float height = pitch * chart.bars.size();
  if (chart.ideal) {
    const float x = x0 + float(bar_pixels(chart, *chart.ideal, bar_w));
    const ImU32 colour = to_imgui(kIdealColour);
    dl->AddLine(ImVec2(x, origin.y - font * 0.3f), ImVec2(x, origin.y + height), colour, 2.0f);
    const std::string label = chart.ideal_label + " = " + byte_text(*chart.ideal);
    dl->AddText(ImVec2(x + 4, origin.y - font * 1.2f), colour, label.c_str());
  }
  ImGui::Dummy(ImVec2(label_w + bar_w + text_w, height));
  for (std::size_t i = 0; i < chart.bars.size(); ++i) {
    const float y = origin.y + pitch * i;
    if (ImGui::IsMouseHoveringRect(ImVec2(x0, y), ImVec2(x0 + bar_w, y + bar_h))) {
      ImGui::BeginTooltip();
      ImGui::TextUnformatted((chart.bars[i].label + ": " + bar_text(chart, chart.bars[i])).c_str());
      ImGui::EndTooltip();
    }
  }
}

}  // namespace cudalab::viewer
