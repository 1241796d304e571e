// What the bars view draws: each kernel version's figure on one problem as a
// bar, in whatever unit the result file gives (GB/s, TFLOP/s, ms), next to
// the anchors of that unit measured in the same run (the copy bandwidth,
// PyTorch, cuBLAS) as vertical lines, each bar labelled with its fraction of
// the anchor the file names.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bench_results.hpp"

namespace cudalab::viewer {

struct Bar {
  std::string label;  // the version
  double value = 0;
  double time_ms = 0;
  std::optional<double> fraction;  // of `fraction_of`
  // The anchor the fraction is of, as shown ("copy", "cublas_tf32"): bars
  // of one chart may name different anchors (a TF32 GEMM against cuBLAS
  // TF32, an fp16 GEMM against cuBLAS fp16).
  std::string fraction_of;
};

struct AnchorLine {
  std::string name;  // as shown: "copy", "PyTorch", "cublas_tf32"
  double value = 0;
};

struct BarChart {
  std::string problem;  // job and shape, e.g. "broadcast_sum 512x4096"
  std::string unit;     // of the bars and the anchors
  std::vector<Bar> bars;
  std::vector<AnchorLine> anchors;
  std::string fraction_anchor;  // the first bar's fraction_of ("copy")
  double max_value = 0;         // axis extent: the largest bar or anchor
};

// "copy_bandwidth" -> "copy", "pytorch:broadcast_add" -> "PyTorch",
// "cublas_fp16@4096x4096x4096" -> "cublas_fp16", other names as they are.
std::string anchor_label(const std::string& name);

// The chart of one problem of a result file (problems(result) lists them):
// the versions' figures in the unit of its first one, the run-wide anchors of
// that unit, and the problem's own anchors (measured on the problem, or on
// its shape) instead of run-wide ones of the same label.
BarChart bars_for_problem(const BenchResult& result, const std::string& problem);

// "3579 GB/s  85% of copy  0.900 ms" (each bar with its own anchor)
std::string bar_text(const BarChart& chart, const Bar& bar);

}  // namespace cudalab::viewer
