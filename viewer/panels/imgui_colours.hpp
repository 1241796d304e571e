// The viewer's fixed UI colours and the bridge from model colours to ImGui.
#pragma once

#include <imgui.h>

#include "model/palette.hpp"

namespace cudalab::viewer {

inline ImU32 to_imgui(Rgba c) { return IM_COL32(c.r, c.g, c.b, c.a); }

inline constexpr ImU32 kErrorText = IM_COL32(255, 110, 110, 255);
inline constexpr ImU32 kSwatchOutline = IM_COL32(150, 155, 165, 255);
inline constexpr ImU32 kMutedText = IM_COL32(160, 165, 175, 255);
inline constexpr ImU32 kCanvasBackground = IM_COL32(62, 65, 74, 255);
// Coalescing: a sector no lane touched (touched ones: kSectorTouched).
inline constexpr ImU32 kSectorIdle = IM_COL32(70, 74, 84, 255);
// Bars: the anchors: copy, PyTorch, any other (version bars: kVersionBar).
inline constexpr ImU32 kAnchorCopy = IM_COL32(90, 210, 120, 255);
inline constexpr ImU32 kAnchorPytorch = IM_COL32(238, 120, 60, 255);
inline constexpr ImU32 kAnchorOther = IM_COL32(200, 130, 230, 255);
// Plots and timelines: axes, grid lines and their labels.
inline constexpr ImU32 kAxis = IM_COL32(150, 155, 165, 255);
inline constexpr ImU32 kGridLine = IM_COL32(80, 84, 94, 255);

// Shows `text` as a tooltip when the last item is hovered.
inline void tooltip_for_last_item(const char* text) {
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32.0f);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

}  // namespace cudalab::viewer
