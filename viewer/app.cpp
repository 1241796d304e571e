#include "app.hpp"

#include <imgui.h>

#include "panels/panels.hpp"

namespace cudalab::viewer {
namespace {

void panel_tab(UiState& state, Panel panel, const char* title, void (*draw)(UiState&)) {
  const ImGuiTabItemFlags flags =
      state.select_panel_tab && state.panel == panel ? ImGuiTabItemFlags_SetSelected : 0;
  // The lab may name the tab; "###" keeps its id the view's whatever it says.
  const LabSource* lab = state.lab_source();
  const std::string named = lab && static_cast<int>(panel) <= static_cast<int>(Panel::kPipeline)
                                ? lab->tab_title(static_cast<View>(panel))
                                : "";
  const std::string label = (named.empty() ? std::string(title) : named) + "###" + title;
  if (ImGui::BeginTabItem(label.c_str(), nullptr, flags)) {
    if (!state.select_panel_tab) state.panel = panel;
    state.layout.message.clear();
    state.layout.message_rect = {};
    ImGui::BeginChild(title);
    draw(state);
    ImGui::EndChild();
    ImGui::EndTabItem();
  }
}

}  // namespace

void draw_frame(UiState& state) {
  collect_run(state, false);
  start_pending_run(state);

  const ImGuiViewport* viewport = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(viewport->WorkPos);
  ImGui::SetNextWindowSize(viewport->WorkSize);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_NoBringToFrontOnFocus;
  ImGui::Begin("cudalab viewer", nullptr, flags);

  if (state.show_controls) {
    ImGui::BeginChild("controls", ImVec2(ImGui::GetFontSize() * 20, 0), true);
    draw_run_controls(state);
    ImGui::EndChild();
    ImGui::SameLine();
  }
  ImGui::BeginGroup();
  if (ImGui::BeginTabBar("panels")) {
    if (shown(state, Panel::kIndexing))
      panel_tab(state, Panel::kIndexing, "Thread indexing", draw_indexing_panel);
    if (shown(state, Panel::kCoalescing))
      panel_tab(state, Panel::kCoalescing, "Coalescing", draw_coalescing_panel);
    if (shown(state, Panel::kBitLayout))
      panel_tab(state, Panel::kBitLayout, "Bit layout", draw_bit_layout_panel);
    if (shown(state, Panel::kFragments))
      panel_tab(state, Panel::kFragments, "Tensor-core fragments", draw_fragment_panel);
    if (shown(state, Panel::kBars)) panel_tab(state, Panel::kBars, "Timing", draw_bars_panel);
    if (shown(state, Panel::kTimeline))
      panel_tab(state, Panel::kTimeline, "Timeline", draw_timeline_panel);
    if (shown(state, Panel::kErrors))
      panel_tab(state, Panel::kErrors, "Error vs size", draw_error_plot_panel);
    if (shown(state, Panel::kTiles))
      panel_tab(state, Panel::kTiles, "Tile walk", draw_tile_walk_panel);
    if (shown(state, Panel::kTraffic))
      panel_tab(state, Panel::kTraffic, "Traffic", draw_traffic_panel);
    if (shown(state, Panel::kSwizzle))
      panel_tab(state, Panel::kSwizzle, "TMA swizzle", draw_swizzle_panel);
    if (shown(state, Panel::kPipeline))
      panel_tab(state, Panel::kPipeline, "Async pipeline", draw_pipeline_panel);
    if (shown(state, Panel::kLeaderboard))
      panel_tab(state, Panel::kLeaderboard, "Leaderboard", draw_leaderboard_panel);
    panel_tab(state, Panel::kHelp, "Help", draw_help_panel);
    ImGui::EndTabBar();
  }
  state.select_panel_tab = false;
  ImGui::EndGroup();
  ImGui::End();
}

}  // namespace cudalab::viewer
