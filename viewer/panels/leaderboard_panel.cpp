// The leaderboard (`./lab view --leaderboard results/leaderboard/leaderboard.json`):
// per lab, each student's score as a bar against the anchor line (1.0: as
// fast as the reference measured in the same run), or one figure's
// ranking, then the files `./lab leaderboard` refused and why. What it
// draws comes from model/leaderboard_model.hpp.
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "imgui_colours.hpp"
#include "model/leaderboard_model.hpp"
#include "panels.hpp"

namespace cudalab::viewer {
namespace {

void bars(const ScoreChart& chart) {
  const float font = ImGui::GetFontSize();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  float label_w = font * 6, text_w = font * 6;
  for (const ScoreBar& b : chart.bars) {
    label_w = std::max(label_w, ImGui::CalcTextSize(b.label.c_str()).x + font * 0.8f);
    text_w = std::max(text_w, ImGui::CalcTextSize(b.text.c_str()).x + font);
  }
  const float bar_w = std::max(ImGui::GetContentRegionAvail().x - label_w - text_w, font * 10);
  const float bar_h = font * 1.5f, pitch = font * 2.1f, top = font * 1.4f;
  const float height = top + pitch * chart.bars.size();
  const float x0 = origin.x + label_w;
  const float axis_w = bar_w * 0.95f;  // the anchor's line clear of the texts
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (std::size_t i = 0; i < chart.bars.size(); ++i) {
    const ScoreBar& b = chart.bars[i];
    const float y = origin.y + top + pitch * i;
    dl->AddText(ImVec2(origin.x, y + (bar_h - font) / 2), ImGui::GetColorU32(ImGuiCol_Text),
                b.label.c_str());
    const float len = std::max(static_cast<float>(b.fraction * axis_w), 2.0f);
    dl->AddRectFilled(ImVec2(x0, y), ImVec2(x0 + len, y + bar_h), to_imgui(kVersionBar));
    dl->AddText(ImVec2(x0 + bar_w + font * 0.5f, y + (bar_h - font) / 2),
                ImGui::GetColorU32(ImGuiCol_Text), b.text.c_str());
  }
  const float anchor_x = x0 + static_cast<float>(chart.anchor_at * axis_w);
  dl->AddLine(ImVec2(anchor_x, origin.y + font), ImVec2(anchor_x, origin.y + height), kAnchorOther,
              2.0f);
  dl->AddText(ImVec2(anchor_x + 4, origin.y), kAnchorOther, "anchor = 1");
  ImGui::Dummy(ImVec2(label_w + bar_w + text_w, height));
}

}  // namespace

void draw_leaderboard_panel(UiState& state) {
  LeaderboardState& l = state.leaderboard;
  if (file_row("leaderboard file", l.path, l.error)) load_leaderboard(state, l.path);
  if (!l.board) return;
  const Leaderboard& board = *l.board;
  if (board.boards.empty()) {
    ImGui::TextUnformatted("no file was ranked (the reasons are below)");
  } else {
    l.selected = std::min(l.selected, board.boards.size() - 1);
    const LeaderboardBoard& b = board.boards[l.selected];
    auto board_title = [](const LeaderboardBoard& x) { return "lab " + x.lab + " on " + x.gpu; };
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 24);
    if (ImGui::BeginCombo("board", board_title(b).c_str())) {
      for (std::size_t i = 0; i < board.boards.size(); ++i)
        if (ImGui::Selectable(board_title(board.boards[i]).c_str(), i == l.selected)) {
          l.selected = i;
          l.figure.reset();
        }
      ImGui::EndCombo();
    }
    if (l.figure && *l.figure >= b.figures.size()) l.figure.reset();
    const std::string scores = "scores (over " + std::to_string(b.score_over) + " figures)";
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 24);
    if (ImGui::BeginCombo("figure",
                          l.figure ? b.figures[*l.figure].title().c_str() : scores.c_str())) {
      if (ImGui::Selectable(scores.c_str(), !l.figure)) l.figure.reset();
      for (std::size_t i = 0; i < b.figures.size(); ++i)
        if (ImGui::Selectable(b.figures[i].title().c_str(), l.figure == i)) l.figure = i;
      ImGui::EndCombo();
    }
    if (l.figure) {
      const LeaderboardFigure& f = b.figures[*l.figure];
      ImGui::TextWrapped("%s: each student's %s over %s, measured in the same run",
                         f.title().c_str(), f.unit.c_str(), f.anchor.c_str());
      bars(ratio_chart(f));
    } else {
      ImGui::TextWrapped(
          "score: the geometric mean of each figure's ratio to its same-run "
          "anchor over the %d figures every ranked file has",
          b.score_over);
      bars(score_chart(b));
    }
  }
  if (!board.rejected.empty()) {
    ImGui::Spacing();
    ImGui::Text("not ranked (%zu):", board.rejected.size());
    ImGui::PushStyleColor(ImGuiCol_Text, kMutedText);
    for (const LeaderboardRejection& r : board.rejected)
      ImGui::TextWrapped("%s: %s", r.file.c_str(), r.reason.c_str());
    ImGui::PopStyleColor();
  }
}

}  // namespace cudalab::viewer
