#include "ui_state.hpp"

#include <iostream>

#include "bench_results.hpp"

namespace cudalab::viewer {

std::optional<Panel> panel_from_name(const std::string& name) {
  for (int p = 0; p < 4; ++p)
    if (name == kPanelNames[p]) return static_cast<Panel>(p);
  return std::nullopt;
}

void execute_pending_run(UiState& state) {
  state.run_pending = false;
  const LabSource* lab = state.lab_source();
  if (lab == nullptr) {
    state.run_error = "no lab is available in this build";
    return;
  }
  RunOutcome outcome = lab->run(state.request);
  if (!outcome.run) {
    state.run_error = outcome.error;
    std::cerr << "cudalab_view: " << lab->title() << " / "
              << lab->versions()[state.request.version].name << ": " << outcome.error << "\n";
    return;
  }
  state.run_error = outcome.error;  // a run can succeed and still report problems
  state.run_seconds = outcome.seconds;
  const bool same_shape = state.current && state.current->run.rows == outcome.run->rows &&
                          state.current->run.cols == outcome.run->cols;
  state.current.emplace(std::move(*outcome.run));
  if (!same_shape) state.indexing.fit_pending = true;
  state.indexing.selection = {};
  const KernelRun& run = state.current->run;
  if (!state.coalescing.site || *state.coalescing.site >= run.sites.size())
    state.coalescing.site = first_store_site(run);
  state.coalescing.block = std::min<std::uint64_t>(state.coalescing.block, run.blocks() - 1);
  state.coalescing.warp = std::min<std::uint64_t>(state.coalescing.warp, run.warps_per_block() - 1);

  RunRequest other = state.request;
  other.version = std::min(state.coalescing.compare_version.value_or(lab->default_comparison()),
                           lab->versions().size() - 1);
  RunOutcome compared = lab->run(other);
  if (compared.run)
    state.compared.emplace(std::move(*compared.run));
  else
    state.compared.reset();
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
}

}  // namespace cudalab::viewer
