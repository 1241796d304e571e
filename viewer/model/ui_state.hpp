// Everything the viewer remembers between frames, in one place (no function
// statics): what is selected, what was loaded, how the views are zoomed.
#pragma once

#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "coalescing_model.hpp"
#include "indexing_model.hpp"
#include "kernel_run.hpp"
#include "lab_source.hpp"
#include "timing_model.hpp"

namespace cudalab::viewer {

enum class Panel { kIndexing, kCoalescing, kTiming, kHelp };
inline constexpr const char* kPanelNames[] = {"indexing", "coalescing", "timing", "help"};
std::optional<Panel> panel_from_name(const std::string& name);

// One run as the panels see it, with the derived data computed once.
struct LoadedRun {
  KernelRun run;
  CoveragePyramid pyramid;
  CoverageStats stats;
  explicit LoadedRun(KernelRun r) : run(std::move(r)), pyramid(run), stats(coverage_stats(run)) {}
};

// What a run on the worker thread hands back: both sides, derived data built.
struct FinishedRun {
  std::optional<LoadedRun> current, compared;
  std::string error;
  double seconds = 0;
};

struct IndexingState {
  ColourBy colour_by = ColourBy::kBlock;
  Selection selection;
  GridView view;
  bool fit_pending = true;  // fit the view to the canvas on the next frame
};

struct CoalescingState {
  std::optional<std::uint32_t> site;  // of the left run; unset: its first store
  std::uint32_t block = 0, warp = 0;
  std::optional<std::size_t> compare_version;  // right-hand side; unset: the lab's coalesced one
};

struct TimingState {
  std::string results_path;
  std::optional<BenchResult> result;
  std::string error;        // why the last load failed
  std::size_t problem = 0;  // index into problems(*result)
};

// Where the panels drew their content in the last frame (window pixels,
// x0 y0 x1 y1); the screenshot mode saves it so tests know where to look.
struct Rect {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};
struct DrawnLayout {
  Rect indexing_canvas;
  Rect coalescing_panes[2];  // left: the selected version, right: the comparison
  Rect timing_chart;
};

struct UiState {
  Panel panel = Panel::kIndexing;
  bool select_panel_tab = true;  // make `panel` the open tab on the next frame
  bool show_controls = true;

  std::vector<std::unique_ptr<LabSource>> labs;
  std::size_t lab = 0;
  RunRequest request;
  bool rerun_on_change = true;
  bool run_pending = true;                 // start a run when none is in flight
  std::future<FinishedRun> run_in_flight;  // the emulator runs off the UI thread

  std::optional<LoadedRun> current;   // the selected version
  std::optional<LoadedRun> compared;  // the coalescing panel's right-hand side
  std::string run_error;
  double run_seconds = 0;

  IndexingState indexing;
  CoalescingState coalescing;
  TimingState timing;
  DrawnLayout layout;

  LabSource* lab_source() const { return labs.empty() ? nullptr : labs[lab].get(); }
};

// Starts the selected version (and the coalescing panel's comparison) on a
// worker thread when a run is pending and none is in flight.
void start_pending_run(UiState& state);
// Takes a finished run into the state (waiting for it with `wait`); a failed
// run keeps the previous one on screen and sets run_error. Returns whether a
// run is still in flight.
bool collect_run(UiState& state, bool wait);

// Loads a bench result file into state.timing; on failure keeps the app
// running, sets timing.error and writes it to stderr.
void load_results(UiState& state, const std::string& path);

}  // namespace cudalab::viewer
