// Error vs size: each series a line of markers on log-log axes, one grid
// line per decade (per power of two for sizes in bytes). Errors of exactly 0
// sit on the bottom axis.
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "imgui_colours.hpp"
#include "panels.hpp"

namespace cudalab::viewer {
namespace {

constexpr float kMarker = 4.0f;  // half the side of a point's square

void legend(const ErrorPlot& plot) {
  for (std::size_t s = 0; s < plot.series.size(); ++s) {
    const float size = ImGui::GetFontSize();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x, p.y + size * 0.25f),
                                              ImVec2(p.x + size * 0.5f, p.y + size * 0.75f),
                                              to_imgui(series_colour(s)));
    ImGui::Dummy(ImVec2(size * 0.5f, size));
    ImGui::SameLine();
    ImGui::TextUnformatted(plot.series[s].name.c_str());
    ImGui::SameLine(0, size);
  }
  ImGui::NewLine();
}

void axes(ImDrawList* dl, const Rect& area, const LogAxis& x, const LogAxis& y,
          const ErrorPlot& plot) {
  const float font = ImGui::GetFontSize();
  // A label on every k-th grid line, k as small as keeps them apart (a base-2
  // axis of 1 KiB .. 1 GiB has 21 lines).
  const auto x_ticks = x.ticks();
  const float spacing = area.width() / float(std::max<std::size_t>(x_ticks.size() - 1, 1));
  const std::size_t every =
      std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(font * 4.0f / spacing)));
  for (std::size_t i = 0; i < x_ticks.size(); ++i) {
    const double t = x_ticks[i];
    const float px = area.x0 + float(x.position(t) * area.width());
    dl->AddLine(ImVec2(px, area.y0), ImVec2(px, area.y1), kGridLine);
    if (i % every == 0)
      dl->AddText(ImVec2(px - font, area.y1 + 3), kMutedText, tick_label(x, t).c_str());
  }
  for (double t : y.ticks()) {
    const float py = area.y0 + float((1.0 - y.position(t)) * area.height());
    dl->AddLine(ImVec2(area.x0, py), ImVec2(area.x1, py), kGridLine);
    dl->AddText(ImVec2(area.x0 - font * 3.6f, py - font / 2), kMutedText, decade_label(t).c_str());
  }
  dl->AddRect(ImVec2(area.x0, area.y0), ImVec2(area.x1, area.y1), kAxis);
  dl->AddText(ImVec2(area.x1 - font * 6, area.y1 + font * 1.4f), kMutedText, plot.x_label.c_str());
  dl->AddText(ImVec2(area.x0 - font * 3.6f, area.y0 - font * 1.4f), kMutedText,
              plot.y_label.c_str());
}

}  // namespace

void draw_error_plot_panel(UiState& state) {
  state.layout.error_plot = {};
  const bool file_has_errors = state.timing.result && file_plot(*state.timing.result);
  if (file_has_errors && state.errors) {
    if (ImGui::RadioButton("this run", !state.errors_view.from_file))
      state.errors_view.from_file = false;
    ImGui::SameLine();
    if (ImGui::RadioButton("result file", state.errors_view.from_file))
      state.errors_view.from_file = true;
  }
  const ErrorPlot* shown_plot = shown_errors(state);
  const bool of_the_run = shown_plot == nullptr || (state.errors && shown_plot == &*state.errors);
  const bool said = of_the_run && unfinished_message(state, Panel::kErrors);
  if (shown_plot == nullptr) {
    if (!said)
      ImGui::TextUnformatted(
          "No error measurements yet: pick a version that measures errors and press Run, or load "
          "a result file that has them.");
    return;
  }
  const ErrorPlot& plot = *shown_plot;
  if (!plot.title.empty()) ImGui::TextWrapped("%s", plot.title.c_str());
  legend(plot);
  lab_note(state, View::kErrors);

  const float font = ImGui::GetFontSize();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const Rect area{origin.x + font * 4, origin.y + font * 1.6f,
                  origin.x + std::max(avail.x - font * 2.5f, font * 12),
                  origin.y + std::max(avail.y - font * 3.2f, font * 8)};
  ImGui::Dummy(ImVec2(area.x1 - origin.x, area.y1 - origin.y + font * 3));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const LogAxis x = x_axis(plot), y = y_axis(plot);
  axes(dl, area, x, y, plot);
  dl->PushClipRect(ImVec2(area.x0 - kMarker, area.y0 - kMarker),
                   ImVec2(area.x1 + kMarker, area.y1 + kMarker), true);
  // Lines first, then every marker on top, so that no line hides a point.
  for (std::size_t s = 0; s < plot.series.size(); ++s) {
    const Rgba c = series_colour(s);
    const ImU32 line = IM_COL32(c.r, c.g, c.b, 140);
    const auto& points = plot.series[s].points;
    for (std::size_t i = 1; i < points.size(); ++i) {
      const PlotPixel a = point_pixel(x, y, points[i - 1], area.width(), area.height());
      const PlotPixel b = point_pixel(x, y, points[i], area.width(), area.height());
      dl->AddLine(ImVec2(area.x0 + float(a.x), area.y0 + float(a.y)),
                  ImVec2(area.x0 + float(b.x), area.y0 + float(b.y)), line, 1.5f);
    }
  }
  for (std::size_t s = 0; s < plot.series.size(); ++s)
    for (const PlotPoint& p : plot.series[s].points) {
      const PlotPixel px = point_pixel(x, y, p, area.width(), area.height());
      const ImVec2 centre(area.x0 + float(px.x), area.y0 + float(px.y));
      dl->AddRectFilled(ImVec2(centre.x - kMarker, centre.y - kMarker),
                        ImVec2(centre.x + kMarker, centre.y + kMarker), to_imgui(series_colour(s)));
    }
  dl->PopClipRect();
  state.layout.error_plot = area;
}

}  // namespace cudalab::viewer
