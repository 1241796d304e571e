#include "ui_state.hpp"

#include <algorithm>
#include <iostream>
#include <set>

#include "bench_results.hpp"

namespace cudalab::viewer {

std::optional<Panel> panel_from_name(const std::string& name) {
  for (int p = 0; p < kPanelCount; ++p)
    if (name == kPanelNames[p]) return static_cast<Panel>(p);
  return std::nullopt;
}

std::string panel_names() {
  std::string names;
  for (int p = 0; p < kPanelCount; ++p) names += (p ? ", " : "") + std::string(kPanelNames[p]);
  return names;
}

std::vector<Panel> shown_panels(const UiState& state) {
  std::vector<Panel> panels;
  const LabSource* lab = state.lab_source();
  if (lab == nullptr) panels.push_back(Panel::kBars);
  const bool file_timelines = state.timing.result && !state.timing.result->timelines.empty();
  const bool file_errors = state.timing.result && file_plot(*state.timing.result);
  for (int p = 0; p < kPanelCount; ++p) {
    const auto panel = static_cast<Panel>(p);
    if (panel == Panel::kHelp || (lab == nullptr && panel == Panel::kBars)) continue;
    if (panel == Panel::kLeaderboard) {
      if (state.leaderboard.board || !state.leaderboard.error.empty()) panels.push_back(panel);
      continue;
    }
    if ((lab != nullptr && shows(*lab, static_cast<View>(p))) ||
        (panel == Panel::kTimeline && file_timelines) || (panel == Panel::kErrors && file_errors))
      panels.push_back(panel);
  }
  panels.push_back(Panel::kHelp);
  return panels;
}

bool shown(const UiState& state, Panel panel) {
  const auto panels = shown_panels(state);
  return std::find(panels.begin(), panels.end(), panel) != panels.end();
}

std::string unfinished_text(const UiState& state, Panel panel) {
  if (panel == Panel::kHelp || panel == Panel::kLeaderboard) return {};
  const auto it = state.unfinished.find(static_cast<View>(panel));
  return it == state.unfinished.end() ? std::string() : it->second;
}

const Timeline* shown_timeline(const UiState& state) {
  const auto& file = state.timing.result;
  const std::size_t in_file = file ? file->timelines.size() : 0;
  const auto choice = state.timeline_view.file_timeline;
  if (choice && *choice < in_file) return &file->timelines[*choice];
  if (state.timeline) return &*state.timeline;
  return in_file > 0 ? &file->timelines.front() : nullptr;
}

const ErrorPlot* shown_errors(const UiState& state) {
  const auto& file = state.timing.result;
  const ErrorPlot* in_file = file ? file_plot(*file) : nullptr;
  if (in_file && (state.errors_view.from_file || !state.errors)) return in_file;
  return state.errors ? &*state.errors : nullptr;
}

bool set_lab_parameter(UiState& state, const std::string& name, std::int64_t value) {
  const LabSource* lab = state.lab_source();
  const auto index = lab ? parameter_index(*lab, name) : std::nullopt;
  if (!index || *index >= state.request.values.size()) return false;
  const Parameter p = lab->parameters()[*index];
  if (value < p.min || value > p.max) return false;
  if (state.request.values[*index] != value) state.run_pending = true;
  state.request.values[*index] = value;
  return true;
}

void select_lab(UiState& state, std::size_t index) {
  state.lab = index;
  if (const LabSource* lab = state.lab_source()) state.request = default_request(*lab);
  state.coalescing.compare_version.reset();
  state.run_pending = true;
}

namespace {

// Runs on the worker thread: touches nothing but its arguments. The
// coalescing view's right-hand side is a second run of another version.
FinishedRun run_both(const LabSource* lab, RunRequest request,
                     std::optional<std::size_t> compare_version) {
  FinishedRun done;
  RunOutcome outcome;
  try {  // lab code that throws must not end the viewer
    outcome = lab->run(request);
  } catch (const std::exception& e) {
    const std::string title = lab->title();
    outcome.error = e.what();
    const std::string why = "the run stopped: " + std::string(e.what()) + ". `./lab run " +
                            title.substr(0, title.find(' ')) + "` says why.";
    for (View view : views_filled(*lab, request.version)) outcome.unfinished[view] = why;
  }
  done.error = outcome.error;  // a run can succeed and still report problems
  done.seconds = outcome.seconds;
  done.timeline = std::move(outcome.timeline);
  done.errors = std::move(outcome.errors);
  done.tiles = std::move(outcome.tiles);
  done.bits = std::move(outcome.bits);
  done.fragments = std::move(outcome.fragments);
  done.traffic = std::move(outcome.traffic);
  done.swizzle = std::move(outcome.swizzle);
  done.pipeline = std::move(outcome.pipeline);
  done.unfinished = std::move(outcome.unfinished);
  if (outcome.run) done.current.emplace(std::move(*outcome.run));
  if (!done.current || !compare_version) return done;
  request.version = *compare_version;
  try {
    RunOutcome compared = lab->run(request);
    if (compared.run) done.compared.emplace(std::move(*compared.run));
  } catch (const std::exception& e) {
    done.error += (done.error.empty() ? "" : "\n") + std::string("the comparison: ") + e.what();
  }
  return done;
}

void take(UiState& state, FinishedRun done) {
  state.run_error = done.error;
  if (!done.has_data()) {
    const LabSource* lab = state.lab_source();
    std::cerr << "cudalab_view: " << lab->title() << " / "
              << lab->versions()[state.request.version].name << ": " << done.error << "\n";
    return;
  }
  state.run_seconds = done.seconds;
  state.timeline = std::move(done.timeline);
  state.errors = std::move(done.errors);
  state.tiles = std::move(done.tiles);
  state.bits = std::move(done.bits);
  state.fragments = std::move(done.fragments);
  state.traffic = std::move(done.traffic);
  state.swizzle = std::move(done.swizzle);
  state.pipeline = std::move(done.pipeline);
  state.unfinished = std::move(done.unfinished);
  std::set<std::string> said;  // what the student must do first, once per sentence
  for (const auto& [view, sentence] : state.unfinished)
    if (said.insert(sentence).second) std::cerr << "cudalab_view: " << sentence << "\n";
  if (!done.current) {
    state.current.reset();
    state.compared.reset();
    return;
  }
  const bool same_shape = state.current && state.current->run.rows == done.current->run.rows &&
                          state.current->run.cols == done.current->run.cols;
  state.current = std::move(done.current);
  state.compared = std::move(done.compared);
  if (!same_shape) state.indexing.fit_pending = true;
  state.indexing.selection = {};
  const KernelRun& run = state.current->run;
  if (!state.coalescing.site || *state.coalescing.site >= run.sites.size())
    state.coalescing.site = first_store_site(run);
  state.coalescing.block = std::min<std::uint64_t>(state.coalescing.block, run.blocks() - 1);
  state.coalescing.warp = std::min<std::uint64_t>(state.coalescing.warp, run.warps_per_block() - 1);
}

}  // namespace

void start_pending_run(UiState& state) {
  if (!state.run_pending || state.run_in_flight.valid()) return;
  state.run_pending = false;
  const LabSource* lab = state.lab_source();
  if (lab == nullptr) {
    state.run_error = "no lab is available in this build";
    return;
  }
  std::optional<std::size_t> compare;
  if (shows(*lab, View::kCoalescing))
    compare = std::min(
        state.coalescing.compare_version.value_or(lab->default_comparison(state.request.version)),
        lab->versions().size() - 1);
  state.run_in_flight = std::async(std::launch::async, run_both, lab, state.request, compare);
}

bool collect_run(UiState& state, bool wait) {
  if (!state.run_in_flight.valid()) return false;
  if (!wait && state.run_in_flight.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
    return true;
  take(state, state.run_in_flight.get());
  return false;
}

void load_leaderboard(UiState& state, const std::string& path) {
  LeaderboardState& l = state.leaderboard;
  l.path = path;
  auto loaded = cudalab::viewer::load_leaderboard(path);
  if (auto* error = std::get_if<std::string>(&loaded)) {
    l.error = *error;
    l.board.reset();
    std::cerr << "cudalab_view: " << *error << "\n";
    return;
  }
  l.error.clear();
  l.board = std::move(std::get<Leaderboard>(loaded));
  l.selected = 0;
  l.figure.reset();
}

void load_results(UiState& state, const std::string& path) {
  state.timing.results_path = path;
  auto loaded = load_bench_result(path);
  if (auto* error = std::get_if<std::string>(&loaded)) {
    state.timing.error = *error;
    state.timing.result.reset();
    std::cerr << "cudalab_view: " << *error << "\n";
    return;
  }
  state.timing.error.clear();
  state.timing.result = std::move(std::get<BenchResult>(loaded));
  state.timing.problem = 0;
  state.timeline_view.file_timeline.reset();
  if (!state.timing.result->timelines.empty()) state.timeline_view.file_timeline = 0;
  state.errors_view.from_file = file_plot(*state.timing.result) != nullptr;
}

}  // namespace cudalab::viewer
