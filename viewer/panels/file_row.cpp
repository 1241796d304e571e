// The row that names a file to open, shared by the views that read one (a
// result file, a leaderboard): an input box, a load button, the last error.
#include <cstdio>
#include <string>

#include <imgui.h>
#include "imgui_colours.hpp"
#include "panels.hpp"

namespace cudalab::viewer {

bool file_row(const char* label, std::string& path, const std::string& error) {
  char text[1024];
  std::snprintf(text, sizeof text, "%s", path.c_str());
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 30);
  const bool entered =
      ImGui::InputText(label, text, sizeof text, ImGuiInputTextFlags_EnterReturnsTrue);
  path = text;
  ImGui::SameLine();
  // The button's ID carries the label: two views' rows never share one.
  const bool clicked = ImGui::Button((std::string("load##") + label).c_str());
  if (!error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, kErrorText);
    ImGui::TextWrapped("%s", error.c_str());
    ImGui::PopStyleColor();
  }
  return clicked || entered;
}

}  // namespace cudalab::viewer
