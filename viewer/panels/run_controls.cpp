// Left sidebar: which lab and version to run, with which of the lab's
// parameters and launch configuration; the outcome of the last run, errors
// included.
#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "imgui_colours.hpp"
#include "panels.hpp"

namespace cudalab::viewer {
namespace {

void section(const char* title) {
  ImGui::Spacing();
  ImGui::TextColored(ImVec4(0.55f, 0.75f, 1.0f, 1.0f), "%s", title);
  ImGui::Separator();
}

bool input_u32(const char* label, std::uint32_t& value, std::uint32_t min_value) {
  const bool changed = ImGui::InputScalar(label, ImGuiDataType_U32, &value);
  if (value < min_value) value = min_value;
  return changed;
}

bool input_parameter(const Parameter& p, std::int64_t& value) {
  const bool changed = ImGui::InputScalar(p.label.c_str(), ImGuiDataType_S64, &value);
  value = std::clamp(value, p.min, p.max);
  return changed;
}

bool lab_and_version(UiState& state) {
  bool changed = false;
  const LabSource* lab = state.lab_source();
  if (ImGui::BeginCombo("lab", lab ? lab->title().c_str() : "(none)")) {
    for (std::size_t i = 0; i < state.labs.size(); ++i)
      if (ImGui::Selectable(state.labs[i]->title().c_str(), i == state.lab) && i != state.lab) {
        select_lab(state, i);
        changed = true;
      }
    ImGui::EndCombo();
  }
  lab = state.lab_source();
  if (lab == nullptr) return changed;
  ImGui::PushStyleColor(ImGuiCol_Text, kMutedText);
  ImGui::TextWrapped("code: %s", lab->code_origin().c_str());
  ImGui::PopStyleColor();

  const auto versions = lab->versions();
  if (ImGui::BeginCombo("version", versions[state.request.version].name.c_str())) {
    for (std::size_t v = 0; v < versions.size(); ++v)
      if (ImGui::Selectable(versions[v].name.c_str(), v == state.request.version)) {
        changed |= v != state.request.version;
        state.request.version = v;
      }
    ImGui::EndCombo();
  }
  ImGui::TextWrapped("%s", versions[state.request.version].description.c_str());
  return changed;
}

bool parameters(UiState& state, const LabSource& lab) {
  RunRequest& r = state.request;
  bool changed = false;
  const auto all = lab.parameters();
  if (all.empty()) return false;
  section("problem");
  for (std::size_t i = 0; i < all.size() && i < r.values.size(); ++i)
    changed |= input_parameter(all[i], r.values[i]);
  const auto presets = lab.presets();
  for (const Preset& p : presets) {
    if (ImGui::SmallButton(p.label.c_str()) && p.values.size() == r.values.size()) {
      r.values = p.values;
      changed = true;
    }
    ImGui::SameLine();
  }
  if (!presets.empty()) ImGui::NewLine();
  return changed;
}

bool launch(UiState& state, const LabSource& lab) {
  RunRequest& r = state.request;
  bool changed = false;
  section("launch");
  changed |= input_u32("blockDim.x", r.block.x, 1);
  changed |= input_u32("blockDim.y", r.block.y, 1);
  changed |= ImGui::Checkbox("grid from the problem", &r.auto_grid);
  tooltip_for_last_item(
      "Use the lab's own grid for this problem (for lab 01: enough blocks of blockDim.x "
      "threads to cover every element, split into y when x would pass 65535).");
  const bool grid_from_viewer = lab.versions()[r.version].grid_from_viewer;
  if (!grid_from_viewer) {
    ImGui::PushStyleColor(ImGuiCol_Text, kMutedText);
    ImGui::TextWrapped("this version's code picks its own grid");
    ImGui::PopStyleColor();
  }
  ImGui::BeginDisabled(r.auto_grid || !grid_from_viewer);
  changed |= input_u32("gridDim.x", r.grid.x, 1);
  changed |= input_u32("gridDim.y", r.grid.y, 1);
  ImGui::EndDisabled();
  return changed;
}

void run_outcome(const UiState& state) {
  section("last run");
  if (state.run_in_flight.valid()) {
    ImGui::TextColored(ImVec4(1, 0.85f, 0.4f, 1), "running on the emulator...");
  }
  if (state.current) {
    const KernelRun& run = state.current->run;
    ImGui::TextWrapped("%s", run.kernel.c_str());
    ImGui::Text("grid (%u,%u,%u)  block (%u,%u,%u)", run.grid.x, run.grid.y, run.grid.z,
                run.block.x, run.block.y, run.block.z);
    ImGui::Text("%llu elements, emulated in %.0f ms",
                static_cast<unsigned long long>(run.elements()), state.run_seconds * 1e3);
  } else if (state.timeline || state.errors || state.tiles || state.bits || state.traffic ||
             state.swizzle || state.pipeline) {
    ImGui::Text("ran in %.0f ms", state.run_seconds * 1e3);
  }
  if (!state.run_error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, kErrorText);
    ImGui::TextWrapped("%s", state.run_error.c_str());
    ImGui::PopStyleColor();
  }
}

}  // namespace

void draw_run_controls(UiState& state) {
  bool changed = lab_and_version(state);
  if (const LabSource* lab = state.lab_source()) {
    changed |= parameters(state, *lab);
    if (lab->has_launch_config()) changed |= launch(state, *lab);
  }
  ImGui::Separator();
  if (ImGui::Button("Run (R)")) state.run_pending = true;
  ImGui::SameLine();
  ImGui::Checkbox("re-run on change", &state.rerun_on_change);
  if (changed && state.rerun_on_change) state.run_pending = true;
  run_outcome(state);
}

}  // namespace cudalab::viewer
