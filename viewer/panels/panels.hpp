// One function per view; the frame (app.cpp) is a list of them.
#pragma once

#include <string>

#include "model/ui_state.hpp"

namespace cudalab::viewer {

void draw_run_controls(UiState& state);
void draw_indexing_panel(UiState& state);
void draw_coalescing_panel(UiState& state);
void draw_bars_panel(UiState& state);
void draw_timeline_panel(UiState& state);
void draw_error_plot_panel(UiState& state);
void draw_tile_walk_panel(UiState& state);
void draw_traffic_panel(UiState& state);
void draw_bit_layout_panel(UiState& state);
void draw_fragment_panel(UiState& state);
void draw_swizzle_panel(UiState& state);
void draw_pipeline_panel(UiState& state);
void draw_leaderboard_panel(UiState& state);
void draw_help_panel(UiState& state);

// A timeline's title, legend, the lab's note on `view`, and its rows of
// spans on one axis, recorded in the layout's timeline fields (the timeline
// view's, and the pipeline view's, which is drawn as one).
void draw_timeline(UiState& state, const Timeline& timeline, View view);

// A file to open: an input box labelled `label` holding `path`, a load
// button and `error` under them; true when the student asked to load it.
bool file_row(const char* label, std::string& path, const std::string& error);

// The lab's note on `view`, if it has one, wrapped under the view.
void lab_note(const UiState& state, View view);

// What the student must do before `panel` can show the last run
// (unfinished_text), in words, wrapped at the top of the view and recorded
// in the layout; false when there is nothing to say.
bool unfinished_message(UiState& state, Panel panel);

}  // namespace cudalab::viewer
