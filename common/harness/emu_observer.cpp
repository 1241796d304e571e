#include "cudalab/harness/emu_observer.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "cudalab/emu/recorder.hpp"
#include "cudalab/harness/run_log.hpp"

namespace cudalab::harness {
namespace {

// Reports kept in full per call; the rest are counted.
constexpr std::size_t kReportsKept = 3;
// First elements not written exactly once, kept per call.
constexpr std::size_t kWrongElementsKept = 5;

// "block (0,0,0) thread (14,0,0) and block (1,0,0) thread (5,0,0)"
std::string writer_text(const emu::ElementCoverage& element) {
  const std::size_t known = std::min<std::size_t>(element.writes, element.writers.size());
  std::string text;
  for (std::size_t w = 0; w < known; ++w) {
    text += (w == 0 ? "" : " and ") + element.writers[w].to_string();
  }
  if (element.writes > known) text += " and " + std::to_string(element.writes - known) + " more";
  return text;
}

SectorSummary summarize(const emu::SectorStats& stats) {
  SectorSummary summary;
  summary.requests = stats.requests;
  summary.sectors = stats.sectors;
  summary.efficiency = stats.efficiency();
  summary.bytes = stats.bytes_requested;
  for (std::size_t k = stats.sectors_histogram.size(); k-- > 0;) {
    if (stats.sectors_histogram[k] != 0) {
      summary.max_sectors = static_cast<unsigned>(k);
      break;
    }
  }
  return summary;
}

// Counts one write to the output by its width, and remembers the first
// misaligned one (a GPU faults on those).
void count_width(WriteWidths& widths, const emu::AccessRecord& access, std::uintptr_t begin,
                 std::size_t element_bytes) {
  if (access.bytes <= 4) {
    ++widths.scalar_writes;
  } else if (access.bytes == 16) {
    ++widths.vector_writes;
  } else {
    ++widths.other_writes;
  }
  if (access.address % access.bytes == 0) return;
  if (widths.misaligned++ == 0) {
    const auto offset = access.address - begin;
    widths.first_misaligned = std::to_string(access.bytes) + "-byte write at element " +
                              std::to_string(offset / element_bytes) +
                              " of the output (byte offset " + std::to_string(offset) +
                              ", address " + std::to_string(access.address % 16) + " mod 16)";
  }
}

CoverageSummary summarize(const emu::Coverage& merged) {
  CoverageSummary coverage;
  coverage.elements = merged.elements.size();
  coverage.complete = merged.complete;
  for (std::size_t i = 0; i < merged.elements.size(); ++i) {
    const auto writes = merged.elements[i].writes;
    if (writes == 0) ++coverage.unwritten;
    if (writes == 1) ++coverage.written_once;
    if (writes > 1) ++coverage.written_more;
    if (writes != 1 && coverage.first_wrong.size() < kWrongElementsKept) {
      coverage.first_wrong.push_back({i, writes, writer_text(merged.elements[i])});
    }
  }
  return coverage;
}

emu::Options observer_options(const RunOptions& run) {
  emu::Options options = emu::options();
  options.print_reports = false;
  // Untraced calls still collect reports; they need no accesses kept.
  if (!run.trace) options.max_recorded_accesses = 0;
  return options;
}

}  // namespace

struct EmuObserver::State {
  explicit State(const RunOptions& run) : options(run) {
    // A caller that records the call itself (the viewer) keeps its Recording
    // and its options, and reads them; this call then observes nothing.
    if (emu::recording_alive()) return;
    scoped.emplace(observer_options(run));
    recording.emplace();
  }
  RunOptions options;
  std::optional<emu::ScopedOptions> scoped;
  std::optional<emu::Recording> recording;
};

EmuObserver::EmuObserver(const RunOptions& options) : state_(std::make_unique<State>(options)) {}
EmuObserver::~EmuObserver() = default;

void EmuObserver::finish(Observation& observation, const OutputRegion& output) {
  observation.output_address = reinterpret_cast<std::uintptr_t>(output.base);
  if (!state_->recording) return;
  const emu::Recording& recording = *state_->recording;
  const auto& launches = recording.launches();
  observation.launches = static_cast<int>(launches.size());
  const auto reports = recording.reports();
  observation.report_count = reports.size();
  for (std::size_t r = 0; r < std::min(reports.size(), kReportsKept); ++r) {
    observation.reports.push_back(reports[r].to_string());
  }
  add_emulator_reports(observation.reports, observation.report_count);
  if (!state_->options.trace) return;

  emu::Coverage merged;
  merged.elements.resize(output.count);
  emu::SectorStats store_stats, load_stats;
  WriteWidths widths;
  const auto begin = reinterpret_cast<std::uintptr_t>(output.base);
  const auto end = begin + output.count * output.element_bytes;
  for (const auto& launch : launches) {
    emu::add_coverage(merged, launch, output.base, output.element_bytes);
    store_stats.merge(launch.coalescing.stores);
    load_stats.merge(launch.coalescing.loads);
    for (const auto& access : launch.accesses) {
      if (!access.is_write() || access.is_shared()) continue;
      if (access.address < begin || access.address >= end) continue;
      count_width(widths, access, begin, output.element_bytes);
    }
  }
  observation.coverage = summarize(merged);
  observation.stores = summarize(store_stats);
  observation.loads = summarize(load_stats);
  observation.write_widths = widths;
  if (state_->options.export_json) observation.trace_json = emu::to_json(recording).dump();
}

}  // namespace cudalab::harness
