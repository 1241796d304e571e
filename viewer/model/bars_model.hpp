// What the bars view draws: each kernel version's figure on one problem as a
// bar, in whatever unit the result file gives (GB/s, TFLOP/s, ms), next to
// the anchors of that unit measured in the same run (the copy bandwidth,
// PyTorch, cuBLAS) as vertical lines, each bar labelled with its fraction of
// the anchor the file names, computed from the line drawn for it.
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
  std::string name;  // as shown: "copy 8 MiB", "PyTorch sdpa_flash_bf16", "cublas_tf32"
  double value = 0;
  std::string family;  // "copy", "PyTorch", or the name: the line's colour
};

struct BarChart {
  std::string problem;  // job and shape, e.g. "broadcast_sum 512x4096"
  std::string unit;     // of the bars and the anchors
  std::vector<Bar> bars;
  std::vector<AnchorLine> anchors;
  std::string fraction_anchor;  // the first bar's fraction_of ("copy")
  double max_value = 0;         // axis extent: the largest bar or anchor
};

// "copy_bandwidth" -> "copy", "copy_8388608_bytes" -> "copy 8 MiB",
// "pytorch:torch_sdpa_flash_bf16" -> "PyTorch sdpa_flash_bf16" (which
// backend), "pytorch:broadcast_add" -> "PyTorch broadcast_add",
// "cublas_fp16@4096x4096x4096" -> "cublas_fp16", other names as they are.
std::string anchor_label(const std::string& name);
// "copy", "PyTorch", or the label itself.
std::string anchor_family(const std::string& name);

// The chart of one problem of a result file (problems(result) lists them):
// the versions' figures in the unit of its first one, and as lines the
// anchors of that unit that belong to this problem:
//  - those measured on the problem (or on its shape);
//  - the run-wide anchors its bars name as what their fraction is of;
//  - where no bar in the file names an anchor (older files), every run-wide
//    one of the unit.
// A run-wide anchor some other chart's bars name (lab 03's pipeline on 1
// stream, lab 01's copy of another size) is that chart's experiment: not
// drawn here. One measured on the problem replaces a run-wide one of its
// family that no bar names. Each bar's fraction is its value over the line
// of the anchor it names, so the percentage and the line agree.
BarChart bars_for_problem(const BenchResult& result, const std::string& problem);

// Where each anchor line's label goes, one row per anchor (row i above the
// bars: labels never overlap): right of its line, or left of it where the
// right would cross another anchor's line or run past `right_end` and the
// left crosses none and stays right of `left_end`. x0 and x1 per label.
struct LabelSpan {
  float x0 = 0, x1 = 0;
};
std::vector<LabelSpan> place_anchor_labels(const std::vector<float>& line_x,
                                           const std::vector<float>& widths, float gap,
                                           float left_end, float right_end);

// "3579 GB/s  85% of copy  0.900 ms" (each bar with its own anchor)
std::string bar_text(const BarChart& chart, const Bar& bar);

}  // namespace cudalab::viewer
