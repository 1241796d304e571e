// Async pipeline: one block's mbarriers and async copies as the emulator ran
// them (model/pipeline_model), drawn as a timeline: a row per barrier with
// its copies in flight and phase completions, a row per warp with its waits
// and arrivals. Hover a span for what it is.
#include <imgui.h>

#include "panels.hpp"

namespace cudalab::viewer {

void draw_pipeline_panel(UiState& state) {
  state.layout.timeline_rows.clear();
  state.layout.timeline.reset();
  const bool said = unfinished_message(state, Panel::kPipeline);
  if (!state.pipeline) {
    if (!said) ImGui::TextUnformatted("No pipeline yet: press Run.");
    return;
  }
  draw_timeline(state, *state.pipeline, View::kPipeline);
}

}  // namespace cudalab::viewer
