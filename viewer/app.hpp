// The viewer's frame: the window layout and the list of panels.
#pragma once

#include "model/ui_state.hpp"

namespace cudalab::viewer {

// Draws one frame's UI into the current ImGui frame, filling the display.
void draw_frame(UiState& state);

// Applies the keyboard shortcuts of model/shortcuts.hpp; returns true when
// the user asked to quit.
bool handle_shortcuts(UiState& state);

}  // namespace cudalab::viewer
