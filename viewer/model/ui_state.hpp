// Everything the viewer remembers between frames, in one place (no function
// statics): what is selected, what was loaded, how the views are zoomed.
#pragma once

#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench_results.hpp"
#include "coalescing_model.hpp"
#include "error_plot_model.hpp"
#include "indexing_model.hpp"
#include "kernel_run.hpp"
#include "lab_source.hpp"
#include "leaderboard_model.hpp"
#include "tile_walk_model.hpp"
#include "timeline_model.hpp"

namespace cudalab::viewer {

// The window's tabs: one per typed view, in View's order, then the
// leaderboard (no lab's view: shown when one is loaded), then help.
enum class Panel {
  kIndexing,
  kCoalescing,
  kBitLayout,
  kFragments,
  kBars,
  kTimeline,
  kErrors,
  kTiles,
  kTraffic,
  kSwizzle,
  kPipeline,
  kLeaderboard,
  kHelp
};
inline constexpr const char* kPanelNames[] = {
    "indexing", "coalescing", "bits",    "fragments", "timing",      "timeline", "errors",
    "tiles",    "traffic",    "swizzle", "pipeline",  "leaderboard", "help"};
inline constexpr int kPanelCount = 13;
std::optional<Panel> panel_from_name(const std::string& name);
// "indexing, coalescing, ..., help": for messages.
std::string panel_names();
inline Panel panel_of(View view) { return static_cast<Panel>(view); }
static_assert(static_cast<int>(Panel::kPipeline) == static_cast<int>(View::kPipeline),
              "the view tabs come first, in View's order");

// One run as the panels see it, with the derived data computed once.
struct LoadedRun {
  KernelRun run;
  CoveragePyramid pyramid;
  CoverageStats stats;
  explicit LoadedRun(KernelRun r) : run(std::move(r)), pyramid(run), stats(coverage_stats(run)) {}
};

// What a run on the worker thread hands back: both sides, derived data built,
// and the lab's other views.
struct FinishedRun {
  std::optional<LoadedRun> current, compared;
  std::optional<Timeline> timeline;
  std::optional<ErrorPlot> errors;
  std::optional<TileWalk> tiles;
  std::optional<BitLayout> bits;
  std::optional<FragmentLayout> fragments;
  std::optional<TrafficChart> traffic;
  std::optional<SwizzleLayout> swizzle;
  std::optional<Timeline> pipeline;
  std::map<View, std::string> unfinished;  // RunOutcome::unfinished
  std::string error;
  double seconds = 0;
  bool has_data() const {
    return current || timeline || errors || tiles || bits || fragments || traffic || swizzle ||
           pipeline || !unfinished.empty();
  }
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

// The leaderboard tab: `./lab leaderboard`'s leaderboard.json.
struct LeaderboardState {
  std::string path;
  std::string error;  // why the file could not be read
  std::optional<Leaderboard> board;
  std::size_t selected = 0;           // which board (lab)
  std::optional<std::size_t> figure;  // a figure's ranking instead of the scores
};

// Which timeline the timeline view shows: the last run's, or one of the
// result file's (loading a file with timelines picks its first).
struct TimelineState {
  std::optional<std::size_t> file_timeline;  // unset: the run's
};

// Which error plot the error view shows: the last run's, or the result
// file's error_vs_k figures (loading a file that has them picks the file's).
struct ErrorsState {
  bool from_file = false;
};

// The bit-layout view's box for typing a value ("1e-6", "0x3f801000").
struct BitLayoutState {
  std::string typed;
  std::string typed_error;  // why the typed text is not a value
};

// The fragment view: the lane whose elements stand out (the one under the
// mouse, else the one clicked).
struct FragmentState {
  std::optional<int> selected_lane;
  std::optional<int> hovered_lane;
};

struct TileWalkState {
  std::size_t step = 0;     // clamped to the walk's steps when drawn
  std::size_t program = 0;  // whose tiles stand out
};

// Where the panels drew their content in the last frame (window pixels,
// x0 y0 x1 y1); the screenshot mode saves it so tests know where to look.
struct Rect {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  float width() const { return x1 - x0; }
  float height() const { return y1 - y0; }
};
struct DrawnLayout {
  Rect indexing_canvas;
  Rect coalescing_panes[2];  // left: the selected version, right: the comparison
  Rect timing_chart;
  Rect timeline_canvas;                 // the time axis spans its width
  std::vector<Rect> timeline_rows;      // one band per row of the timeline
  std::optional<Timeline> timeline;     // what was drawn (a run's times differ each time)
  Rect error_plot;                      // the plot area inside the axes
  std::vector<Rect> tile_grids;         // one per grid of the tile walk
  std::vector<Rect> bit_rows;           // one per format: its cells, bit 0 (the sign) at x0
  std::vector<Rect> fragment_matrices;  // A, B, C/D: their cells
  std::vector<Rect> traffic_bars;       // one per rank, from 0 bytes to its total
  // The swizzle view's grid (element (0, 0) at x0 y0, rows down) and the
  // pipeline view's rows (the timeline's fields: it draws as a timeline).
  Rect swizzle_grid;
  // The bars view's anchor lines (x in window pixels) and their labels.
  std::vector<float> timing_anchor_x;
  std::vector<Rect> timing_anchor_labels;
  // The sentence the open view showed in words instead of (or above) a
  // picture (unfinished_text), and where.
  std::string message;
  Rect message_rect;
};

struct UiState {
  Panel panel = Panel::kIndexing;
  bool select_panel_tab = true;  // make `panel` the open tab on the next frame
  bool show_controls = true;

  std::vector<std::unique_ptr<LabSource>> labs;  // from available_labs()
  std::size_t lab = 0;
  RunRequest request;
  bool rerun_on_change = true;
  bool run_pending = true;                 // start a run when none is in flight
  std::future<FinishedRun> run_in_flight;  // the emulator runs off the UI thread

  std::optional<LoadedRun> current;   // the selected version
  std::optional<LoadedRun> compared;  // the coalescing panel's right-hand side
  std::optional<Timeline> timeline;
  std::optional<ErrorPlot> errors;
  std::optional<TileWalk> tiles;
  std::optional<BitLayout> bits;
  std::optional<FragmentLayout> fragments;
  std::optional<TrafficChart> traffic;
  std::optional<SwizzleLayout> swizzle;
  std::optional<Timeline> pipeline;
  std::map<View, std::string> unfinished;  // of the last run, by the views its version fills
  std::string run_error;
  double run_seconds = 0;

  IndexingState indexing;
  CoalescingState coalescing;
  TimingState timing;
  LeaderboardState leaderboard;
  TimelineState timeline_view;
  TileWalkState tile_walk;
  ErrorsState errors_view;
  BitLayoutState bit_layout;
  FragmentState fragment_view;
  DrawnLayout layout;

  LabSource* lab_source() const { return labs.empty() ? nullptr : labs[lab].get(); }
};

// The tabs of the selected lab's views, then the leaderboard where one is
// loaded, then help; without a lab, the bars (a result file needs no lab)
// and help. A result file with timelines adds
// the timeline, one with error_vs_k figures the error plot.
std::vector<Panel> shown_panels(const UiState& state);
bool shown(const UiState& state, Panel panel);

// What `panel` says in words about the last run: what the student must do
// before it can show something (RunOutcome::unfinished); empty when nothing.
std::string unfinished_text(const UiState& state, Panel panel);

// The timeline the timeline view shows (TimelineState), or nullptr.
const Timeline* shown_timeline(const UiState& state);

// The error plot the error view shows (ErrorsState), or nullptr.
const ErrorPlot* shown_errors(const UiState& state);

// Sets the selected lab's parameter `name` and asks for a run (the views that
// set a parameter themselves, e.g. the typed value of the bit layout); false
// when the lab has no such parameter or the value is out of its range.
bool set_lab_parameter(UiState& state, const std::string& name, std::int64_t value);

// Makes lab `index` the selected one, with its default request.
void select_lab(UiState& state, std::size_t index);

// Starts the selected version (and the coalescing panel's comparison) on a
// worker thread when a run is pending and none is in flight.
void start_pending_run(UiState& state);
// Takes a finished run into the state (waiting for it with `wait`); a failed
// run keeps the previous one on screen and sets run_error. Returns whether a
// run is still in flight.
bool collect_run(UiState& state, bool wait);

// Loads `./lab leaderboard`'s leaderboard.json into state.leaderboard (the
// leaderboard tab shows once one is loaded); on failure sets
// leaderboard.error and writes it to stderr.
void load_leaderboard(UiState& state, const std::string& path);

// Loads a bench result file into state.timing; on failure keeps the app
// running, sets timing.error and writes it to stderr.
void load_results(UiState& state, const std::string& path);

}  // namespace cudalab::viewer
