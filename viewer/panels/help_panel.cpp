// Help: the keyboard shortcuts and what each of the lab's views shows.
#include <imgui.h>

#include "imgui_colours.hpp"
#include "model/shortcuts.hpp"
#include "panels.hpp"

namespace cudalab::viewer {
namespace {

struct ViewHelp {
  Panel panel;
  const char* text;
};

constexpr ViewHelp kViewHelp[] = {
    {Panel::kIndexing,
     "Indexing: every cell is one element of the output, coloured by the block, warp or thread "
     "that wrote it. Black cells were never written, red cells were written two or more times: "
     "both mean the index arithmetic is wrong. Hover a cell to see who wrote it."},
    {Panel::kCoalescing,
     "Coalescing: one warp's memory request. Each row is a 128-byte line split into four 32-byte "
     "sectors; orange sectors had to move. Coloured ticks above are the lanes (lane 0 blue ... "
     "lane 31 yellow). Efficiency = bytes asked for / bytes moved."},
    {Panel::kBitLayout,
     "Bit layout: one value in fp32, TF32 (toward zero, ties away, nearest even), bf16 and "
     "fp16. Blue: sign, green: exponent, yellow: mantissa, red: the input's bits the format "
     "cannot hold, from which rounding decides. Under each row: the value the pattern decodes "
     "to, its relative error against the input, and overflow, subnormal or NaN."},
    {Panel::kFragments,
     "Tensor-core fragments: the A, B and C/D matrices of one mma.sync, each element coloured "
     "by the lane that holds it and labelled with the lane and its register (.lo/.hi: the half "
     "of a packed f16x2 register). Hover or click an element to pick out its lane's share."},
    {Panel::kBars,
     "Timing: each version's figure from a `./lab bench` result file as a bar, against the "
     "anchors measured in the same run (copy: green, PyTorch: orange), with its fraction of the "
     "first anchor."},
    {Panel::kTimeline,
     "Timeline: one band per row (a stream, a rank, or blocks that ran at once); each box is a "
     "span from its start to its end, coloured by its kind. An arrow runs from an operation to "
     "one on another stream that was ordered after it (an event wait, the default stream); red "
     "boxes joined by a red line raced. Hover a box for its times and the race report. It comes "
     "from the last run, or from the timelines of a result file."},
    {Panel::kErrors,
     "Error vs size: each series' error against the problem size, both axes logarithmic (one "
     "grid line per power of ten). An error of exactly 0 sits on the bottom axis."},
    {Panel::kTiles,
     "Tile walk: the kernel's matrices as grids of tiles. At the chosen step the selected "
     "program's tiles are orange; tiles other programs touch at that step are shaded by how "
     "many do (teal: one, yellow: the most)."},
    {Panel::kTraffic,
     "Traffic: the bytes each rank sent, one bar per rank split by the peer it went to, and the "
     "least an algorithm must send as a green line (an all-reduce: 2(n-1)/n of the buffer, "
     "what a ring sends). Hover a bar for its peers."},
    {Panel::kSwizzle,
     "TMA swizzle: a box a TMA load put in shared memory, one cell per element, coloured by the "
     "bank (of 32, 4 bytes each) its first byte landed in after the swizzle. Reading 8 rows of "
     "one 16-byte column (as ldmatrix and wgmma do) is free of conflicts only when the 8 rows "
     "land in 8 different groups of 4 banks: without a swizzle 128-byte rows all land in one. "
     "Pick the swizzle and element size above; hover a cell for its address and bank."},
    {Panel::kPipeline,
     "Async pipeline: one block's mbarriers and async copies in the order the emulator ran "
     "them. A row per barrier: copies in flight from issue to landing, and each phase's "
     "completion; a row per warp: its lanes waiting on a phase (from the first parking to the "
     "last released) and arriving. Hover a span for what it is."},
};

}  // namespace

void lab_note(const UiState& state, View view) {
  const LabSource* lab = state.lab_source();
  const std::string note = lab ? lab->note(view) : "";
  if (note.empty()) return;
  ImGui::PushStyleColor(ImGuiCol_Text, kMutedText);
  ImGui::TextWrapped("%s", note.c_str());
  ImGui::PopStyleColor();
}

bool unfinished_message(UiState& state, Panel panel) {
  const std::string text = unfinished_text(state, panel);
  if (text.empty()) return false;
  const ImVec2 start = ImGui::GetCursorScreenPos();
  ImGui::PushStyleColor(ImGuiCol_Text, to_imgui(kUnfinishedText));
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
  const ImVec2 end = ImGui::GetItemRectMax();
  state.layout.message = text;
  state.layout.message_rect = {start.x, start.y, end.x, end.y};
  ImGui::Spacing();
  return true;
}

void draw_help_panel(UiState& state) {
  ImGui::TextUnformatted("Keyboard shortcuts (not while typing in a field)");
  if (ImGui::BeginTable("shortcuts", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
    for (const Shortcut& s : kShortcuts) {
      ImGui::TableNextColumn();
      ImGui::TextColored(ImVec4(0.55f, 0.75f, 1.0f, 1.0f), "%s", s.keys);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(s.action);
    }
    ImGui::EndTable();
  }
  ImGui::Spacing();
  ImGui::Separator();
  for (const ViewHelp& help : kViewHelp) {
    if (!shown(state, help.panel)) continue;
    ImGui::TextWrapped("%s", help.text);
    ImGui::Spacing();
  }
}

}  // namespace cudalab::viewer
