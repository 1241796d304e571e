// Reads a `./lab bench` result file (docs/results-format.md) into what the
// views draw: each kernel version's figure per problem, in any unit, the
// anchors measured in the same run (the bars view), and the file's timelines
// (the timeline view), and its error-vs-K or busbw-vs-size figures (the
// plot view).
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "error_plot_model.hpp"
#include "timeline_model.hpp"

namespace cudalab {
struct Timeline;
}

namespace cudalab::viewer {

// A result file's (or the emulator's modelled) timeline for the timeline
// view: titled with its name, in ms, spans with their ids, after and race.
Timeline timeline_of(const cudalab::Timeline& from);

// One figure of one version on one problem.
struct Measurement {
  std::string version;  // e.g. "v3_coalesced"
  std::string problem;  // job and shape, e.g. "broadcast_sum 16384x16384"
  double value = 0;
  std::string unit;  // "GB/s", "TFLOP/s", ...
  double time_ms = 0;
  std::optional<double> fraction;  // value / the anchor `fraction_of`
  std::string fraction_of;         // that anchor's name in the file
};

// A reference figure from the same run: the copy bandwidth, PyTorch, cuBLAS.
struct AnchorFigure {
  // As in the file: "copy_bandwidth", "pytorch:broadcast_add"; for a PyTorch
  // figure, "pytorch:" and its version ("pytorch:pytorch_add_").
  std::string name;
  double value = 0;
  std::string unit;
  // Empty: one figure for the whole run; else the problem it was measured
  // on ("gemm 4096x4096x4096"), or just its shape ("4096x4096x4096") for an
  // anchor the file names NAME@SHAPE (lab 02's cublas_fp16@4096x4096x4096).
  std::string problem;
};

struct BenchResult {
  std::string source;  // the file it came from
  std::string lab, gpu, driver, date;
  std::vector<Measurement> versions;
  std::vector<AnchorFigure> anchors;
  std::vector<Timeline> timelines;  // in ms, titled with the file's timeline names
  // Figures named "error_vs_k" (lab 02's bench): one series per version (the
  // GEMM mode), x = k (the shape's last dimension), y = the normwise error
  // (the figure's errors.normwise; else its value, unless its unit is a
  // speed or a time: lab 02's bench times these GEMMs too). Not bars.
  std::optional<ErrorPlot> error_vs_k;
  // Figures named "busbw_<collective>" (lab 04's bench, shape {ranks,
  // bytes}): one series per figure and version ("all_reduce nccl"), x = the
  // message size in bytes on a base-2 axis, y = the busbw. Also bars.
  std::optional<ErrorPlot> busbw_vs_size;
};

inline constexpr const char* kErrorVsKFigure = "error_vs_k";
inline constexpr const char* kBusbwFigurePrefix = "busbw_";

// The plot a result file offers the error view: error_vs_k, else
// busbw_vs_size; null when it has neither.
const ErrorPlot* file_plot(const BenchResult& result);

// The problems present, in the order they first appear.
std::vector<std::string> problems(const BenchResult& result);

// The result, or a message naming the file and the problem (missing,
// truncated, an unknown schema, neither figures nor timelines) that the
// viewer shows in its window.
std::variant<BenchResult, std::string> load_bench_result(const std::string& path);

}  // namespace cudalab::viewer
