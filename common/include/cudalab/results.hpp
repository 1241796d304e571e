// Result files: what a benchmark run measured, as JSON, for the viewer and
// for docs/results/. The schema ("cudalab.result/1") is documented in
// docs/results-format.md; change it only together with that page and the
// version string.
//
//   auto result = cudalab::new_result("lab01_bench", "01_broadcast", argc, argv);
//   result.gpu = cudalab::query_device();                      // device_info.hpp
//   result.add_anchor(cudalab::copy_anchor(cudalab::measure_copy_bandwidth(1 << 30)));
//   result.add_figure({.name = "broadcast_sum", .version = "v3_coalesced",
//                      .shape = {16384, 16384}, .bytes = bytes, .time_ms = ms,
//                      .value = bytes / ms / 1e6, .unit = "GB/s"});
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

inline constexpr const char* kResultSchema = "cudalab.result/1";
// The anchor every bandwidth figure is measured against.
inline constexpr const char* kCopyAnchorName = "copy_bandwidth";

// One measured figure: a kernel version on one input.
struct Figure {
  std::string name{};                        // the job, e.g. "broadcast_sum"
  std::string version{};                     // the kernel version, e.g. "v3_coalesced"
  std::vector<std::int64_t> shape{};         // problem dimensions, outermost first
  std::uint64_t bytes = 0;                   // bytes the job must move (read + written)
  double time_ms = 0;                        // median time of one run
  double value = 0;                          // the figure itself, in `unit`
  std::string unit{};                        // "GB/s", "TFLOP/s", ...
  std::optional<double> fraction_of_copy{};  // value / copy anchor, for GB/s figures
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

struct ResultFile {
  std::string schema = kResultSchema;
  std::string tool{};                // the program that wrote it, e.g. "lab01_bench"
  std::string lab{};                 // e.g. "01_broadcast"; empty for tools outside the labs
  std::optional<DeviceFacts> gpu{};  // empty: not run on a GPU (the emulator)
  std::string host{};
  std::string date{};          // UTC, ISO-8601: 2026-11-29T15:16:00Z
  std::string git_revision{};  // short hash, "-dirty" if modified; "unknown" outside git
  std::vector<std::string> command_line{};
  std::vector<Figure> figures{};
  std::vector<Anchor> anchors{};

  // Appends `figure` after checking that its numbers are finite and
  // non-negative (std::invalid_argument otherwise). A GB/s figure without a
  // fraction_of_copy gets one when the copy anchor is already there, so
  // record the anchor first.
  void add_figure(Figure figure);
  void add_anchor(Anchor anchor);
  const Anchor* find_anchor(const std::string& name) const;
};

// A result for this run: schema, tool, lab, host, date, git revision and
// command line filled in; gpu, figures and anchors left to the caller.
ResultFile new_result(std::string tool, std::string lab, int argc, const char* const* argv);

// The copy anchor from measure_copy_bandwidth's measurement, in GB/s.
Anchor copy_anchor(const BandwidthMeasurement& copy);

// Thrown by the reader for anything that is not a valid cudalab result:
// unreadable, truncated, another format, another schema version, a missing
// or mistyped field. The message starts with the file name.
class ResultFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

nlohmann::json to_json(const ResultFile& result);
// `source` names the data in error messages (a file name).
ResultFile result_from_json(const nlohmann::json& json, const std::string& source);
ResultFile parse_result(const std::string& text, const std::string& source);

// Writes atomically (a temporary file, then a rename), so a reader never sees
// half a file. Throws std::runtime_error if the file cannot be written.
void write_result(const std::filesystem::path& path, const ResultFile& result);
ResultFile read_result(const std::filesystem::path& path);

// The pieces new_result uses, for tools that build a ResultFile by hand.
std::string utc_timestamp_now();
std::string host_name();
std::string git_revision();

}  // namespace cudalab
