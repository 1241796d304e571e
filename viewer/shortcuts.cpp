// Keyboard shortcuts (the table the help panel shows is model/shortcuts.hpp).
// ImGui 1.86 indexes keys by the backend's own codes, hence GLFW's names.
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>

#include "app.hpp"

namespace cudalab::viewer {
namespace {

bool pressed(int key) { return ImGui::IsKeyPressed(key, false); }
bool pressed_repeat(int key) { return ImGui::IsKeyPressed(key, true); }

void show(UiState& state, Panel panel) {
  state.panel = panel;
  state.select_panel_tab = true;
}

void step_version(UiState& state, int delta) {
  const LabSource* lab = state.lab_source();
  if (lab == nullptr) return;
  const int count = static_cast<int>(lab->versions().size());
  const int v = std::clamp(static_cast<int>(state.request.version) + delta, 0, count - 1);
  if (v == static_cast<int>(state.request.version)) return;
  state.request.version = static_cast<std::size_t>(v);
  state.run_pending = true;
}

void indexing_keys(UiState& state) {
  IndexingState& ix = state.indexing;
  if (pressed(GLFW_KEY_B)) ix.colour_by = ColourBy::kBlock;
  if (pressed(GLFW_KEY_W)) ix.colour_by = ColourBy::kWarp;
  if (pressed(GLFW_KEY_T)) ix.colour_by = ColourBy::kThread;
  if (pressed(GLFW_KEY_F)) ix.fit_pending = true;
  if (pressed(GLFW_KEY_ESCAPE)) ix.selection = {};
  const ImVec2 centre(ImGui::GetIO().DisplaySize.x / 2, ImGui::GetIO().DisplaySize.y / 2);
  if (pressed_repeat(GLFW_KEY_EQUAL) || pressed_repeat(GLFW_KEY_KP_ADD))
    zoom_at(ix.view, 1.25, centre.x, centre.y);
  if (pressed_repeat(GLFW_KEY_MINUS) || pressed_repeat(GLFW_KEY_KP_SUBTRACT))
    zoom_at(ix.view, 0.8, centre.x, centre.y);
}

void tile_walk_keys(UiState& state) {
  if (!state.tiles) return;
  TileWalkState& tw = state.tile_walk;
  const std::size_t steps = step_count(*state.tiles), programs = state.tiles->programs.size();
  if (pressed_repeat(GLFW_KEY_LEFT) && tw.step > 0) --tw.step;
  if (pressed_repeat(GLFW_KEY_RIGHT) && tw.step + 1 < steps) ++tw.step;
  if (pressed_repeat(GLFW_KEY_UP) && tw.program > 0) --tw.program;
  if (pressed_repeat(GLFW_KEY_DOWN) && tw.program + 1 < programs) ++tw.program;
}

void coalescing_keys(UiState& state) {
  CoalescingState& cs = state.coalescing;
  if (!state.current) return;
  const KernelRun& run = state.current->run;
  auto step = [](std::uint32_t& value, int delta, std::uint64_t count) {
    const long long next = static_cast<long long>(value) + delta;
    value = static_cast<std::uint32_t>(std::clamp<long long>(next, 0, count - 1));
  };
  if (pressed_repeat(GLFW_KEY_LEFT)) step(cs.warp, -1, run.warps_per_block());
  if (pressed_repeat(GLFW_KEY_RIGHT)) step(cs.warp, +1, run.warps_per_block());
  if (pressed_repeat(GLFW_KEY_UP)) step(cs.block, -1, run.blocks());
  if (pressed_repeat(GLFW_KEY_DOWN)) step(cs.block, +1, run.blocks());
}

}  // namespace

bool handle_shortcuts(UiState& state) {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.KeyCtrl && pressed(GLFW_KEY_Q)) return true;
  if (io.WantTextInput || io.KeyCtrl || io.KeyAlt) return false;
  const auto tabs = shown_panels(state);
  for (std::size_t t = 0; t < tabs.size() && t < 9; ++t)
    if (pressed(GLFW_KEY_1 + static_cast<int>(t))) show(state, tabs[t]);
  if (pressed(GLFW_KEY_F1) || pressed(GLFW_KEY_H)) show(state, Panel::kHelp);
  if (pressed(GLFW_KEY_R)) state.run_pending = true;
  if (pressed(GLFW_KEY_C)) state.show_controls = !state.show_controls;
  if (pressed(GLFW_KEY_LEFT_BRACKET)) step_version(state, -1);
  if (pressed(GLFW_KEY_RIGHT_BRACKET)) step_version(state, +1);
  if (state.panel == Panel::kIndexing) indexing_keys(state);
  if (state.panel == Panel::kCoalescing) coalescing_keys(state);
  if (state.panel == Panel::kTiles) tile_walk_keys(state);
  return false;
}

}  // namespace cudalab::viewer
