// Timeline: one band per row (a stream, a rank, blocks that ran at once),
// each span a box from its start to its end, coloured by its kind, on a
// shared time axis fitted to the whole run; arrows from a span to those
// ordered after it on other streams; spans in a race red, joined by a red
// line. A span's label, when it has one, is written in its box if it fits
// (else its first word, if that fits).
// Hover a span for its times (and its race). The timeline comes from
// the last run or from the loaded result file; the geometry from the model.
#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "imgui_colours.hpp"
#include "panels.hpp"

namespace cudalab::viewer {
namespace {

// Dark, to read on every kind's light fill.
constexpr ImU32 kLabelOnSpan = IM_COL32(20, 22, 30, 255);

void legend(const Timeline& timeline) {
  for (const std::string& kind : kinds(timeline)) {
    if (kind.empty()) continue;
    const float s = ImGui::GetFontSize();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::GetWindowDrawList()->AddRectFilled(p, ImVec2(p.x + s, p.y + s),
                                              to_imgui(kind_colour(timeline, kind)));
    ImGui::Dummy(ImVec2(s, s));
    ImGui::SameLine();
    ImGui::TextUnformatted(kind.c_str());
    ImGui::SameLine(0, s);
  }
  if (!race_links(timeline, {}).empty()) {
    const float s = ImGui::GetFontSize();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::GetWindowDrawList()->AddRectFilled(p, ImVec2(p.x + s, p.y + s), to_imgui(kRaceColour));
    ImGui::Dummy(ImVec2(s, s));
    ImGui::SameLine();
    ImGui::TextUnformatted("race (hover for the report)");
  }
  ImGui::NewLine();
}

ImVec2 at(Point p) { return ImVec2(float(p.x), float(p.y)); }

// Over the spans, so that an arrow into a span's start stays visible.
void dependencies_and_races(ImDrawList* dl, const Timeline& timeline, const TimelineFrame& frame) {
  const float font = ImGui::GetFontSize();
  for (const RaceLink& link : race_links(timeline, frame))
    dl->AddLine(at(link.from), at(link.to), to_imgui(kRaceColour), 2.0f);
  for (const Arrow& arrow : dependency_arrows(timeline, frame)) {
    dl->AddLine(at(arrow.tail), at(arrow.head), to_imgui(kArrowColour), 1.5f);
    const auto [left, right] = arrowhead(arrow, font * 0.6);
    dl->AddTriangleFilled(at(arrow.head), at(left), at(right), to_imgui(kArrowColour));
  }
}

// Picks the last run's timeline or one of the result file's, when there is a choice.
void source_picker(UiState& state) {
  const auto& file = state.timing.result;
  const std::size_t in_file = file ? file->timelines.size() : 0;
  if (in_file + (state.timeline ? 1 : 0) < 2) return;
  const Timeline* shown = shown_timeline(state);
  auto name = [](const Timeline& t) {
    return t.title.empty() ? std::string("(untitled)") : t.title;
  };
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 24);
  if (ImGui::BeginCombo("timeline", shown ? name(*shown).c_str() : "")) {
    if (state.timeline && ImGui::Selectable("the last run", shown == &*state.timeline))
      state.timeline_view.file_timeline.reset();
    for (std::size_t i = 0; i < in_file; ++i)
      if (ImGui::Selectable(("result file: " + name(file->timelines[i])).c_str(),
                            shown == &file->timelines[i]))
        state.timeline_view.file_timeline = i;
    ImGui::EndCombo();
  }
}

void time_axis(ImDrawList* dl, const Rect& canvas, TimeRange range, const std::string& unit) {
  const float font = ImGui::GetFontSize();
  dl->AddLine(ImVec2(canvas.x0, canvas.y1), ImVec2(canvas.x1, canvas.y1), kAxis);
  for (double t : time_ticks(range)) {
    const float x = canvas.x0 + float((t - range.start) / range.length() * canvas.width());
    dl->AddLine(ImVec2(x, canvas.y0), ImVec2(x, canvas.y1), kGridLine);
    char label[32];
    std::snprintf(label, sizeof label, "%g", t);
    if (x + 2 + ImGui::CalcTextSize(label).x <= canvas.x1 + font)  // not cut at the edge
      dl->AddText(ImVec2(x + 2, canvas.y1 + 2), kMutedText, label);
  }
  dl->AddText(ImVec2(canvas.x1 - font * 2, canvas.y1 + font * 1.2f), kMutedText, unit.c_str());
}

}  // namespace

void draw_timeline_panel(UiState& state) {
  state.layout.timeline_rows.clear();
  state.layout.timeline.reset();
  source_picker(state);
  const Timeline* shown = shown_timeline(state);
  // What the run lacks, unless the view shows a result file's timeline.
  const bool of_the_run = shown == nullptr || (state.timeline && shown == &*state.timeline);
  const bool said = of_the_run && unfinished_message(state, Panel::kTimeline);
  if (shown == nullptr) {
    if (!said)
      ImGui::TextUnformatted("No timeline yet: press Run, or load a result file that has one.");
    return;
  }
  const Timeline& timeline = *shown;
  const bool no_spans = std::all_of(timeline.rows.begin(), timeline.rows.end(),
                                    [](const TimelineRow& row) { return row.spans.empty(); });
  if (said && no_spans) return;  // an empty axis would say nothing more
  draw_timeline(state, timeline, View::kTimeline);
}

void draw_timeline(UiState& state, const Timeline& timeline, View view) {
  state.layout.timeline_rows.clear();
  if (!timeline.title.empty()) ImGui::TextWrapped("%s", timeline.title.c_str());
  legend(timeline);
  lab_note(state, view);

  const float font = ImGui::GetFontSize();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  // Wide enough for the longest row name ("blocking: stream 1 (blocking)"), within reason.
  float longest = 0;
  for (const TimelineRow& row : timeline.rows)
    longest = std::max(longest, ImGui::CalcTextSize(row.name.c_str()).x);
  const float label_w = std::clamp(longest + font * 0.5f, font * 7, font * 18),
              axis_h = font * 2.6f;
  const std::size_t rows = std::max<std::size_t>(timeline.rows.size(), 1);
  const float pitch = std::clamp((avail.y - axis_h - font * 4) / rows, 6.0f, font * 2.2f);
  // A margin on the right keeps the last span clear of the window's edge.
  const Rect canvas{origin.x + label_w, origin.y, origin.x + std::max(avail.x - font, label_w + 64),
                    origin.y + pitch * rows};
  ImGui::InvisibleButton("timeline", ImVec2(canvas.x1 - origin.x, canvas.height() + axis_h));
  const bool hovered = ImGui::IsItemHovered();

  ImDrawList* dl = ImGui::GetWindowDrawList();
  const TimeRange range = extent(timeline);
  dl->AddRectFilled(ImVec2(canvas.x0, canvas.y0), ImVec2(canvas.x1, canvas.y1), kCanvasBackground);
  time_axis(dl, canvas, range, timeline.unit);
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const TimelineFrame frame{canvas.x0, canvas.y0, canvas.width(), pitch, range};
  for (std::size_t r = 0; r < timeline.rows.size(); ++r) {
    const TimelineRow& row = timeline.rows[r];
    const Rect band{canvas.x0, canvas.y0 + pitch * r, canvas.x1, canvas.y0 + pitch * (r + 1)};
    state.layout.timeline_rows.push_back(band);
    if (pitch >= font)
      dl->AddText(ImVec2(origin.x, band.y0 + (pitch - font) / 2), kMutedText, row.name.c_str());
    for (std::size_t i = 0; i < row.spans.size(); ++i) {
      const Box box = span_box(timeline, {r, i}, frame);
      dl->AddRectFilled(at({box.x0, box.y0}), at({box.x1, box.y1}),
                        to_imgui(span_colour(timeline, row.spans[i])));
      // A label starts at the box's left edge, whole where it fits, else its
      // first word ("c2" of "c2 > r1") where that fits.
      const std::string& label = row.spans[i].label;
      if (!label.empty() && box.y1 - box.y0 >= font) {
        const float room = float(box.x1 - box.x0) - font * 0.5f;
        std::string shown = label;
        if (ImGui::CalcTextSize(shown.c_str()).x > room) shown = label.substr(0, label.find(' '));
        if (ImGui::CalcTextSize(shown.c_str()).x <= room)
          dl->AddText(ImVec2(float(box.x0) + font * 0.25f, float(box.centre().y) - font / 2),
                      kLabelOnSpan, shown.c_str());
      }
    }
    if (hovered && mouse.y >= band.y0 && mouse.y < band.y1)
      if (const auto s = span_at(timeline, r, range, canvas.width(), mouse.x - canvas.x0))
        tooltip_for_last_item(describe_span(timeline, row.spans[*s]).c_str());
  }
  dependencies_and_races(dl, timeline, frame);
  state.layout.timeline_canvas = canvas;
  state.layout.timeline = timeline;
}

}  // namespace cudalab::viewer
