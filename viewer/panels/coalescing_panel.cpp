// Coalescing: one warp's request at one access site, its 32 lane addresses
// laid over 128-byte lines split into 32-byte sectors; the selected version
// on the left, the comparison (by default the coalesced one) on the right,
// and the histogram of sectors per request over all warps below each.
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "imgui_colours.hpp"
#include "panels.hpp"

namespace cudalab::viewer {
namespace {

constexpr const char* kMetricHelp =
    "The memory system moves 32-byte sectors; an L1 cache line is 128 bytes (4 sectors). "
    "A warp's request is served by every sector any of its active lanes touches.\n\n"
    "sectors touched: distinct 32-byte sectors this request needs.\n"
    "ideal: the fewest sectors that could hold the bytes the lanes asked for.\n"
    "efficiency: requested bytes / (32 x sectors touched). 32 lanes reading consecutive floats "
    "ask for 128 bytes and touch 4 sectors: 100%. Lanes 4 KiB apart touch one sector each: "
    "32 sectors for 128 useful bytes, 12.5%.";

void request_stats(const RequestStats& s) {
  ImGui::Text("sectors touched %d (ideal %d), lines %d", s.sectors, s.ideal_sectors, s.lines);
  tooltip_for_last_item(kMetricHelp);
  const float eff = static_cast<float>(s.efficiency());
  ImGui::Text("efficiency");
  tooltip_for_last_item(kMetricHelp);
  ImGui::SameLine();
  char label[32];
  std::snprintf(label, sizeof label, "%.1f%%", eff * 100);
  ImGui::ProgressBar(eff, ImVec2(-1, 0), label);
  tooltip_for_last_item(kMetricHelp);
}

// The touched lines, one row each: lane markers above the line's 4 sectors.
Rect memory_rows(const WarpRequest& request, float height) {
  const std::vector<LineRow> rows = memory_picture(request);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float font = ImGui::GetFontSize();
  const float label_w = font * 7.5f;
  const float width = std::max(ImGui::GetContentRegionAvail().x - label_w - font * 6, font * 8);
  const float row_h = std::clamp(height / std::max<float>(rows.size(), 1.0f), 8.0f, font * 2.2f);
  const float marker_h = row_h * 0.35f, sector_h = row_h * 0.45f;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const std::uint64_t first_line = rows.empty() ? 0 : rows.front().address;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const LineRow& row = rows[i];
    const float y = origin.y + row_h * i;
    const float x = origin.x + label_w;
    if (row_h >= font) {
      char label[40];
      std::snprintf(label, sizeof label, "+%llu B",
                    static_cast<unsigned long long>(row.address - first_line));
      dl->AddText(ImVec2(origin.x, y + marker_h - font * 0.3f), kMutedText, label);
    }
    for (int s = 0; s < kSectorsPerLine; ++s) {
      const float sx0 = x + width * s / kSectorsPerLine,
                  sx1 = x + width * (s + 1) / kSectorsPerLine;
      dl->AddRectFilled(ImVec2(sx0 + 1, y + marker_h), ImVec2(sx1 - 1, y + marker_h + sector_h),
                        row.sector_touched[s] ? to_imgui(kSectorTouched) : kSectorIdle);
    }
    for (const LaneAccess& lane : row.lanes) {
      const float lx0 = x + width * float(lane.offset) / kLineBytes;
      const float lx1 = x + width * float(lane.offset + lane.bytes) / kLineBytes;
      dl->AddRectFilled(ImVec2(lx0 + 0.5f, y + 1),
                        ImVec2(std::max(lx1 - 0.5f, lx0 + 1.5f), y + marker_h - 1),
                        to_imgui(ramp(lane.lane / 31.0)));
    }
    if (row.gap_before > 0 && row_h >= font) {
      char gap[40];
      std::snprintf(gap, sizeof gap, "skip %llu B",
                    static_cast<unsigned long long>(row.gap_before));
      dl->AddText(ImVec2(x + width + font * 0.5f, y + marker_h - font * 0.3f), kMutedText, gap);
    }
  }
  const float used = std::max(row_h * rows.size(), 1.0f);
  ImGui::Dummy(ImVec2(label_w + width, used));
  if (ImGui::IsItemHovered()) {
    const int hovered = static_cast<int>((ImGui::GetIO().MousePos.y - origin.y) / row_h);
    if (hovered >= 0 && hovered < static_cast<int>(rows.size())) {
      std::string lanes = "lanes in this line:";
      for (const LaneAccess& l : rows[hovered].lanes)
        lanes += " " + std::to_string(l.lane) + "@" + std::to_string(l.offset);
      lanes += "\n(lane@byte offset; markers coloured lane 0 blue ... lane 31 yellow)";
      tooltip_for_last_item(lanes.c_str());
    }
  }
  return {origin.x, origin.y, origin.x + label_w + width, origin.y + used};
}

void histogram(const SiteSummary& summary) {
  float bins[kHistogramBins];
  for (int i = 0; i < kHistogramBins; ++i) bins[i] = static_cast<float>(summary.histogram[i]);
  char overlay[96];
  std::snprintf(overlay, sizeof overlay, "%llu requests: %.1f sectors each (ideal %.1f), %.1f%%",
                static_cast<unsigned long long>(summary.requests), summary.mean_sectors,
                summary.mean_ideal_sectors, summary.efficiency * 100);
  ImGui::TextUnformatted("sectors per request, all warps (0 .. 33+)");
  tooltip_for_last_item(kMetricHelp);
  ImGui::PlotHistogram("##sectors", bins, kHistogramBins, 0, overlay, 0.0f, FLT_MAX,
                       ImVec2(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 5));
  tooltip_for_last_item(kMetricHelp);
}

// One side: `site` is the access site in this run (nullopt: it has none).
Rect pane(const LoadedRun* loaded, std::optional<std::uint32_t> site, const CoalescingState& cs,
          float picture_height) {
  if (loaded == nullptr) {
    ImGui::TextUnformatted("(no run)");
    return {};
  }
  const KernelRun& run = loaded->run;
  ImGui::TextWrapped("%s", run.kernel.c_str());
  if (!site) {
    ImGui::TextUnformatted(run.sites.empty() ? "this kernel made no global memory access"
                                             : "this kernel has no such access site");
    return {};
  }
  ImGui::PushStyleColor(ImGuiCol_Text, kMutedText);
  ImGui::TextWrapped("%s", run.sites[*site].label.c_str());
  ImGui::PopStyleColor();
  const auto index = find_request(run, *site, cs.block, cs.warp);
  Rect drawn;
  if (index) {
    const WarpRequest& request = run.requests[*index];
    request_stats(analyse(request));
    drawn = memory_rows(request, picture_height);
  } else {
    ImGui::TextColored(ImVec4(1, 0.75f, 0.4f, 1), "warp %u of block %u made no request here",
                       cs.warp, cs.block);
    ImGui::Dummy(ImVec2(1, picture_height));
  }
  ImGui::Spacing();
  histogram(summarise_site(run, *site));
  return drawn;
}

void selectors(UiState& state) {
  CoalescingState& cs = state.coalescing;
  const KernelRun& run = state.current->run;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 16);
  const char* site_name = cs.site ? run.sites[*cs.site].label.c_str() : "(none)";
  if (ImGui::BeginCombo("access site", site_name)) {
    for (std::uint32_t s = 0; s < run.sites.size(); ++s)
      if (ImGui::Selectable(run.sites[s].label.c_str(), s == cs.site)) cs.site = s;
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
  int block = static_cast<int>(cs.block), warp = static_cast<int>(cs.warp);
  ImGui::InputInt("block", &block);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
  ImGui::InputInt("warp", &warp);
  cs.block = static_cast<std::uint32_t>(std::clamp<long long>(block, 0, run.blocks() - 1));
  cs.warp = static_cast<std::uint32_t>(std::clamp<long long>(warp, 0, run.warps_per_block() - 1));

  const LabSource* lab = state.lab_source();
  const auto versions = lab->versions();
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
  const std::size_t shown =
      std::min(cs.compare_version.value_or(lab->default_comparison(state.request.version)),
               versions.size() - 1);
  if (ImGui::BeginCombo("compare with", versions[shown].name.c_str())) {
    for (std::size_t v = 0; v < versions.size(); ++v)
      if (ImGui::Selectable(versions[v].name.c_str(), v == shown)) {
        cs.compare_version = v;
        state.run_pending = true;
      }
    ImGui::EndCombo();
  }
}

}  // namespace

void draw_coalescing_panel(UiState& state) {
  const bool said = unfinished_message(state, Panel::kCoalescing);
  if (!state.current) {
    if (!said) ImGui::TextUnformatted("No run yet: pick a version and press Run.");
    return;
  }
  selectors(state);
  const float picture_height = std::max(
      ImGui::GetContentRegionAvail().y - ImGui::GetFontSize() * 15, ImGui::GetFontSize() * 6);
  if (ImGui::BeginTable("side by side", 2, ImGuiTableFlags_BordersInnerV)) {
    ImGui::TableNextColumn();
    const CoalescingState& cs = state.coalescing;
    state.layout.coalescing_panes[0] = pane(&*state.current, cs.site, cs, picture_height);
    ImGui::TableNextColumn();
    const LoadedRun* right = state.compared ? &*state.compared : nullptr;
    // The site matching the left one; where the left kernel made no access
    // (an exercise not done yet), the comparison's own first store.
    const auto right_site = !right    ? std::nullopt
                            : cs.site ? corresponding_site(state.current->run, *cs.site, right->run)
                                      : first_store_site(right->run);
    state.layout.coalescing_panes[1] = pane(right, right_site, cs, picture_height);
    ImGui::EndTable();
  }
}

}  // namespace cudalab::viewer
