// One function per panel; the frame (app.cpp) is a list of them.
#pragma once

#include "model/ui_state.hpp"

namespace cudalab::viewer {

void draw_run_controls(UiState& state);
void draw_indexing_panel(UiState& state);
void draw_coalescing_panel(UiState& state);
void draw_timing_panel(UiState& state);
void draw_help_panel(UiState& state);

}  // namespace cudalab::viewer
