// Result files: what a benchmark run measured, as JSON, for the viewer and
// for docs/results/. The schema ("cudalab.result/2") is documented in
// docs/results-format.md; change it only together with that page and the
// version string. The reader also accepts version 1 files and converts them.
//
//   auto result = cudalab::new_result("lab01_bench", "01_broadcast", argc, argv);
//   result.gpu = cudalab::query_device();                      // device_info.hpp
//   result.add_anchor(cudalab::copy_anchor(cudalab::measure_copy_bandwidth(1 << 30)));
//   result.add_figure({.name = "broadcast_sum", .version = "v3_coalesced",
//                      .shape = {16384, 16384}, .bytes = bytes, .time_ms = ms,
//                      .value = bytes / ms / 1e6, .unit = "GB/s"});  // vs copy_bandwidth
//   result.add_figure({.name = "sgemm", .version = "v2_tiled", .shape = {m, n, k},
//                      .flops = 2 * m * n * k, .time_ms = ms, .value = tflops,
//                      .unit = "TFLOP/s", .errors = {{.normwise = 2.1e-3}}},
//                     "cublas_tf32");                          // vs an anchor you name
//   cudalab::write_result("results/lab01.json", result);
//
//   cudalab::ResultFile loaded = cudalab::read_result(path);  // validates
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "cudalab/device_facts.hpp"

namespace cudalab {

// What the writer writes. The reader also takes kResultSchemaV1.
inline constexpr const char* kResultSchema = "cudalab.result/2";
inline constexpr const char* kResultSchemaV1 = "cudalab.result/1";
// The anchor a bandwidth figure is measured against unless told otherwise.
inline constexpr const char* kCopyAnchorName = "copy_bandwidth";
// Overrides the revision git reports; for copies of the tree without .git.
inline constexpr const char* kGitRevisionVariable = "CUDALAB_GIT_REVISION";

// A figure relative to an anchor of the same unit: figure value / anchor value.
struct Fraction {
  std::string anchor{};  // the anchor's name, e.g. kCopyAnchorName
  double value = 0;
};

// How far a figure's output is from its reference. Each is optional, but a
// figure's `errors` holds at least one; leave out what is not finite (the
// relative error against a reference containing zeros).
struct ErrorFigures {
  std::optional<double> max_abs{};   // max |out - ref|
  std::optional<double> max_rel{};   // max |out - ref| / |ref|
  std::optional<double> normwise{};  // ||out - ref||_2 / ||ref||_2 over the whole output
};

// One measured figure: a kernel version on one input.
struct Figure {
  std::string name{};                    // the job, e.g. "broadcast_sum"
  std::string version{};                 // the kernel version, e.g. "v3_coalesced"
  std::vector<std::int64_t> shape{};     // problem dimensions, outermost first
  std::uint64_t bytes = 0;               // bytes the job must move (read + written)
  std::optional<std::uint64_t> flops{};  // floating-point operations the job needs
  double time_ms = 0;                    // median time of one run
  double value = 0;                      // the figure itself, in `unit`
  std::string unit{};                    // "GB/s", "TFLOP/s", "ms", ...
  std::optional<Fraction> fraction_of{};
  std::optional<ErrorFigures> errors{};  // accuracy of the output this run produced
};

// A reference figure measured in the same run: the device-to-device copy,
// or PyTorch doing the same job.
struct Anchor {
  std::string name{};  // kCopyAnchorName, "pytorch:broadcast_add", ...
  double value = 0;
  std::string unit{};
  std::string source{};  // how it was measured, one line
  std::optional<std::uint64_t> bytes{};
  std::optional<double> time_ms{};
};

// One named interval on a timeline row, in milliseconds from the
// timeline's origin.
struct Span {
  std::string name{};  // e.g. "matmul 3", "copy in"
  double start_ms = 0;
  double end_ms = 0;   // >= start_ms
  std::string kind{};  // optional category: "kernel", "copy", "collective", ...; "" for none
  // Optional, for timelines of streams: the span's number in its timeline
  // (-1: none), the spans of other rows it was ordered after by an event wait
  // or a default-stream rule (by number: the viewer's dependency arrows), and
  // why it is in a race ("": it is not; the report's text).
  int id = -1;
  std::vector<int> after{};
  std::string race{};
};

// One stream, or one rank: the spans that ran on it.
struct TimelineRow {
  std::string name{};  // e.g. "stream 1", "rank 0"
  std::vector<Span> spans{};
};

// What ran when, for one experiment of the run (e.g. "4 streams").
struct Timeline {
  std::string name{};
  std::vector<TimelineRow> rows{};
};

struct ResultFile {
  std::string tool{};                // the program that wrote it, e.g. "lab01_bench"
  std::string lab{};                 // e.g. "01_broadcast"; empty for tools outside the labs
  std::optional<DeviceFacts> gpu{};  // empty: not run on a GPU (the emulator)
  // Multi-GPU runs: how many ranks took part, and every device used (then
  // `gpu` is the first of them). Empty for a single-GPU run.
  std::optional<int> ranks{};
  std::vector<DeviceFacts> gpus{};
  std::string host{};
  std::string date{};          // UTC, ISO-8601: 2026-11-29T15:16:00Z
  std::string git_revision{};  // short hash, "-dirty" if modified; "unknown" if not known
  std::vector<std::string> command_line{};
  std::vector<Figure> figures{};
  std::vector<Anchor> anchors{};
  std::vector<Timeline> timelines{};
  // What the run could not measure, and why, one line each (e.g. "no
  // PyTorch anchor: python3 cannot import torch").
  std::vector<std::string> notes{};

  // Appends `figure` after checking that its numbers are finite and
  // non-negative (std::invalid_argument otherwise). Unless the figure
  // already has one, it gets a fraction_of `anchor_name` when that anchor is
  // there (record anchors first; a different unit is std::invalid_argument),
  // and a GB/s figure with no anchor named gets one of the copy anchor.
  void add_figure(Figure figure, const std::string& anchor_name = "");
  void add_anchor(Anchor anchor);
  // Appends `timeline`; std::invalid_argument for a span that is not finite
  // or ends before it starts.
  void add_timeline(Timeline timeline);
  const Anchor* find_anchor(const std::string& name) const;
};

// A result for this run: tool, lab, host, date, git revision and command
// line filled in; gpu, figures, anchors and timelines left to the caller.
ResultFile new_result(std::string tool, std::string lab, int argc, const char* const* argv);

// The copy anchor from measure_copy_bandwidth's measurement, in GB/s.
Anchor copy_anchor(const BandwidthMeasurement& copy);

// Thrown for anything that is not a valid cudalab result: unreadable,
// truncated, another format, an unknown schema version, a missing, mistyped
// or out-of-range field. The message starts with the file name and names the
// field: "lab01.json: field 'figures[2].time_ms' is missing".
class ResultFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Always writes kResultSchema.
nlohmann::json to_json(const ResultFile& result);
// Reads either schema version; `source` names the data in error messages
// (a file name).
ResultFile result_from_json(const nlohmann::json& json, const std::string& source);
ResultFile parse_result(const std::string& text, const std::string& source);
// One timeline (as in a result file's "timelines"), checked as the reader
// checks those: a benchmark merging the timelines bench_pytorch.py wrote.
Timeline timeline_from_json(const nlohmann::json& json, const std::string& source);

// Validates as the reader does (ResultFormatError), then writes atomically
// (a temporary file, then a rename), so a reader never sees half a file or a
// file it would reject. Throws std::runtime_error if the file cannot be
// written.
void write_result(const std::filesystem::path& path, const ResultFile& result);
ResultFile read_result(const std::filesystem::path& path);

// The pieces new_result uses, for tools that build a ResultFile by hand.
std::string utc_timestamp_now();
std::string host_name();
// $CUDALAB_GIT_REVISION if set, else what git says about the source tree,
// else what CMake saw at configure time, else "unknown".
std::string git_revision();

}  // namespace cudalab
