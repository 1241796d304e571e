// Help: the keyboard shortcuts and what each panel shows.
#include <imgui.h>

#include "imgui_colours.hpp"
#include "model/shortcuts.hpp"
#include "panels.hpp"

namespace cudalab::viewer {

void draw_help_panel(UiState&) {
  ImGui::TextUnformatted("Keyboard shortcuts (not while typing in a field)");
  if (ImGui::BeginTable("shortcuts", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
    for (const Shortcut& s : kShortcuts) {
      ImGui::TableNextColumn();
      ImGui::TextColored(ImVec4(0.55f, 0.75f, 1.0f, 1.0f), "%s", s.keys);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(s.action);
    }
    ImGui::EndTable();
  }
  ImGui::Spacing();
  ImGui::Separator();
  ImGui::TextWrapped(
      "Indexing: every cell is one element of the output, coloured by the block, warp or thread "
      "that wrote it. Black cells were never written, red cells were written two or more times: "
      "both mean the index arithmetic is wrong. Hover a cell to see who wrote it.");
  ImGui::Spacing();
  ImGui::TextWrapped(
      "Coalescing: one warp's memory request. Each row is a 128-byte line split into four 32-byte "
      "sectors; orange sectors had to move. Coloured ticks above are the lanes (lane 0 blue ... "
      "lane 31 yellow). Efficiency = bytes asked for / bytes moved.");
  ImGui::Spacing();
  ImGui::TextWrapped(
      "Timing: bandwidth of each version from a `./lab bench` result file, against the "
      "device-to-device copy (green) and PyTorch (orange) measured in the same run.");
}

}  // namespace cudalab::viewer
