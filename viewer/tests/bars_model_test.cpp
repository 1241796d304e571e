#include "model/bars_model.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

namespace cudalab::viewer {
namespace {

Measurement gbps(std::string version, std::string problem, double ms, double value,
                 std::optional<double> fraction) {
  return {std::move(version), std::move(problem), value, "GB/s", ms, fraction, "copy_bandwidth"};
}

BenchResult sample() {
  BenchResult r;
  r.versions = {gbps("v1", "add 8x8", 2.0, 400, 0.1), gbps("v3", "add 8x8", 0.5, 3600, 0.9),
                gbps("v1", "add 4x4", 1.0, 100, 0.025)};
  r.anchors = {{"copy_bandwidth", 4000, "GB/s", ""},
               {"pytorch:broadcast_add", 2800, "GB/s", ""},
               {"pytorch:broadcast_sum", 90, "GB/s", "add 4x4"}};
  return r;
}

TEST(BarsModel, ListsProblemsInFileOrder) {
  EXPECT_EQ(problems(sample()), (std::vector<std::string>{"add 8x8", "add 4x4"}));
}

TEST(BarsModel, BarsCarryTheirFractionOfTheNamedAnchor) {
  const BarChart c = bars_for_problem(sample(), "add 8x8");
  ASSERT_EQ(c.bars.size(), 2u);
  EXPECT_EQ(c.unit, "GB/s");
  EXPECT_EQ(c.fraction_anchor, "copy");
  EXPECT_DOUBLE_EQ(*c.bars[1].fraction, 0.9);
  EXPECT_DOUBLE_EQ(c.max_value, 4000);
  // The bars name the copy; the run-wide PyTorch figure no bar names, in a
  // file whose bars name their anchors, is not this chart's.
  ASSERT_EQ(c.anchors.size(), 1u);
  EXPECT_EQ(c.anchors[0].name, "copy");
  EXPECT_EQ(c.anchors[0].family, "copy");
}

TEST(BarsModel, PerProblemAnchorIsDrawn) {
  const BarChart c = bars_for_problem(sample(), "add 4x4");
  ASSERT_EQ(c.anchors.size(), 2u);
  EXPECT_EQ(c.anchors[0].name, "PyTorch broadcast_sum");  // measured on add 4x4
  EXPECT_DOUBLE_EQ(c.anchors[0].value, 90);
  EXPECT_EQ(c.anchors[1].name, "copy");
}

// A file that names no anchor for its bars (the first lab 01 files): the
// run-wide anchors of the unit on every chart, the problem's own PyTorch
// figure instead of the run-wide one.
TEST(BarsModel, WithoutNamedAnchorsTheRunWideOnesAreDrawnAndTheProblemsOwnWins) {
  BenchResult r = sample();
  for (Measurement& m : r.versions) m.fraction.reset();
  const BarChart wide = bars_for_problem(r, "add 8x8");
  ASSERT_EQ(wide.anchors.size(), 2u);
  EXPECT_EQ(wide.anchors[0].name, "copy");
  EXPECT_EQ(wide.anchors[1].name, "PyTorch broadcast_add");
  EXPECT_DOUBLE_EQ(wide.anchors[1].value, 2800);
  const BarChart own = bars_for_problem(r, "add 4x4");
  ASSERT_EQ(own.anchors.size(), 2u);
  EXPECT_EQ(own.anchors[0].name, "PyTorch broadcast_sum");
  EXPECT_EQ(own.anchors[1].name, "copy");
}

BenchResult measured(const std::string& file) {
  const auto loaded = load_bench_result(std::string(CUDALAB_RESULTS_DIR) + "/" + file);
  if (const auto* error = std::get_if<std::string>(&loaded)) throw std::runtime_error(*error);
  return std::get<BenchResult>(loaded);
}

std::vector<std::string> names(const BarChart& c) {
  std::vector<std::string> out;
  for (const AnchorLine& a : c.anchors) out.push_back(a.name);
  return out;
}

// Issue 35: lab 03's spins chart carried the pipeline's 1-stream anchor (a
// run-wide figure in ms); it belongs to the pipeline chart only.
TEST(BarsModel, Lab03SpinsChartHasNoLineFromThePipeline) {
  const BenchResult r = measured("lab03-h200-2026-11-30.json");
  EXPECT_EQ(names(bars_for_problem(r, "three_spins 3")), std::vector<std::string>{});
  EXPECT_EQ(names(bars_for_problem(r, "pipeline 33554432x8")),
            std::vector<std::string>{"pipeline_1_stream_pinned"});
  EXPECT_EQ(names(bars_for_problem(r, "h2d_copy 134217728")), std::vector<std::string>{});
}

// Issue 35: lab 01 drew the copies of all five sizes, their labels running
// into each other; a chart draws the copy of its own size, which its bars'
// percentages are of, and PyTorch on the same problem.
TEST(BarsModel, Lab01DrawsTheCopyOfTheSizeTheRunMeasured) {
  const BenchResult r = measured("lab01-h200-2026-11-30b.json");
  const BarChart c = bars_for_problem(r, "broadcast_sum 512x4096");
  EXPECT_EQ(names(c), (std::vector<std::string>{"PyTorch add_", "copy 8 MiB"}));
  for (const Bar& b : c.bars) EXPECT_EQ(b.fraction_of, "copy 8 MiB") << b.label;
  EXPECT_EQ(names(bars_for_problem(r, "broadcast_sum 65536x4096")),
            (std::vector<std::string>{"PyTorch add_", "copy 1 GiB"}));
}

// Issue 35: lab 06's bars said "% of PyTorch" of SDPA flash while the one
// PyTorch line was the naive attention. Each percentage is of the line it
// names, and the line says which backend it is.
TEST(BarsModel, Lab06PercentagesAreOfTheLineTheyName) {
  for (const char* file : {"lab06-h200-2026-11-30.json", "lab06-h200-2026-12-03b.json"}) {
    const BenchResult r = measured(file);
    const BarChart c = bars_for_problem(r, "attention 4x16x4096x128");
    int with_fraction = 0;
    for (const Bar& b : c.bars) {
      if (!b.fraction) continue;
      ++with_fraction;
      const auto line = std::find_if(c.anchors.begin(), c.anchors.end(),
                                     [&](const AnchorLine& a) { return a.name == b.fraction_of; });
      ASSERT_NE(line, c.anchors.end()) << file << ": " << b.label << " names " << b.fraction_of;
      EXPECT_NEAR(*b.fraction * line->value, b.value, 1e-9 * b.value) << file << ": " << b.label;
      EXPECT_EQ(line->family, "PyTorch");
    }
    EXPECT_GT(with_fraction, 0);
  }
  const BarChart c =
      bars_for_problem(measured("lab06-h200-2026-11-30.json"), "attention 4x16x4096x128");
  const auto flash = std::find_if(c.bars.begin(), c.bars.end(),
                                  [](const Bar& b) { return b.label == "lab_flash_bf16"; });
  ASSERT_NE(flash, c.bars.end());
  EXPECT_EQ(flash->fraction_of, "PyTorch sdpa_flash_bf16");
  EXPECT_NE(bar_text(c, *flash).find("  56% of PyTorch sdpa_flash_bf16  "), std::string::npos)
      << bar_text(c, *flash);
}

TEST(BarsModel, AnchorLabelsGoWhereTheyCrossNoOtherLine) {
  // Lines at 100, 150 and 400; labels 80 wide. The first would cross the
  // second's line on its right: it goes left. The others fit on the right.
  const auto spans = place_anchor_labels({100, 150, 400}, {80, 80, 80}, 4, 0, 600);
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_FLOAT_EQ(spans[0].x1, 96);
  EXPECT_FLOAT_EQ(spans[1].x0, 154);
  EXPECT_FLOAT_EQ(spans[2].x0, 404);
  // No room on either side: right of the line, as before.
  const auto tight = place_anchor_labels({10, 20}, {80, 80}, 4, 0, 600);
  EXPECT_FLOAT_EQ(tight[0].x0, 14);
  // Past the right end: left.
  const auto edge = place_anchor_labels({580}, {80}, 4, 0, 600);
  EXPECT_FLOAT_EQ(edge[0].x1, 576);
}

TEST(BarsModel, AnyUnitWithAnchorsOfThatUnitOnly) {
  BenchResult r = sample();
  r.versions = {{"tiled", "sgemm 8192x8192x8192", 51.0, "TFLOP/s", 21.5, 0.14, "cublas_tf32"},
                {"mma", "sgemm 8192x8192x8192", 310.0, "TFLOP/s", 3.5, 0.81, "cublas_tf32"}};
  r.anchors.push_back({"cublas_tf32", 382.0, "TFLOP/s", ""});
  const BarChart c = bars_for_problem(r, "sgemm 8192x8192x8192");
  EXPECT_EQ(c.unit, "TFLOP/s");
  ASSERT_EQ(c.anchors.size(), 1u);  // the GB/s anchors do not belong on this axis
  EXPECT_EQ(c.anchors[0].name, "cublas_tf32");
  EXPECT_EQ(c.fraction_anchor, "cublas_tf32");
  EXPECT_DOUBLE_EQ(c.max_value, 382.0);
  EXPECT_EQ(bar_text(c, c.bars[1]), "310 TFLOP/s  81% of cublas_tf32  3.500 ms");
}

// Lab 02: the fp16 GEMM is measured against cuBLAS fp16, the TF32 one
// against cuBLAS TF32, in one chart.
TEST(BarsModel, EachBarNamesItsOwnAnchor) {
  BenchResult r;
  const std::string gemm = "gemm 8192x8192x8192";
  r.versions = {{"cublas_fp16", gemm, 715.0, "TFLOP/s", 1.54, std::nullopt, ""},
                {"tc_gemm_fp16", gemm, 286.0, "TFLOP/s", 3.85, 0.4, "cublas_fp16"},
                {"tc_gemm_tf32", gemm, 190.0, "TFLOP/s", 5.79, 0.5, "cublas_tf32"}};
  r.anchors = {{"cublas_tf32", 380.0, "TFLOP/s", ""}, {"cublas_fp16", 715.0, "TFLOP/s", ""}};
  const BarChart c = bars_for_problem(r, gemm);
  ASSERT_EQ(c.bars.size(), 3u);
  EXPECT_EQ(c.bars[1].fraction_of, "cublas_fp16");
  EXPECT_EQ(c.bars[2].fraction_of, "cublas_tf32");
  EXPECT_EQ(bar_text(c, c.bars[1]), "286 TFLOP/s  40% of cublas_fp16  3.850 ms");
  EXPECT_EQ(bar_text(c, c.bars[2]), "190 TFLOP/s  50% of cublas_tf32  5.790 ms");
  EXPECT_EQ(bar_text(c, c.bars[0]), "715 TFLOP/s  1.540 ms");
}

TEST(BarsModel, NoFractionInTheFileMeansNoneOnTheBar) {
  BenchResult r = sample();
  r.versions[0].fraction.reset();
  const BarChart c = bars_for_problem(r, "add 8x8");
  EXPECT_FALSE(c.bars[0].fraction.has_value());
  EXPECT_EQ(bar_text(c, c.bars[0]), "400 GB/s  2.000 ms");
}

TEST(BarsModel, BarTextNamesUnitFractionAndTime) {
  const BarChart c = bars_for_problem(sample(), "add 8x8");
  EXPECT_EQ(bar_text(c, c.bars[1]), "3600 GB/s  90% of copy  0.500 ms");
  const Bar small{"tiny", 0.0123, 0, std::nullopt, ""};
  EXPECT_EQ(bar_text(c, small), "0.0123 GB/s");
}

TEST(BarsModel, AnchorLabels) {
  EXPECT_EQ(anchor_label("copy_bandwidth"), "copy");
  EXPECT_EQ(anchor_label("copy_8388608_bytes"), "copy 8 MiB");
  EXPECT_EQ(anchor_label("copy_5695052_bytes"), "copy 5.43 MiB");
  EXPECT_EQ(anchor_label("pytorch:broadcast_add"), "PyTorch broadcast_add");
  EXPECT_EQ(anchor_label("pytorch:torch_sdpa_flash_bf16"), "PyTorch sdpa_flash_bf16");
  EXPECT_EQ(anchor_label("pytorch:pytorch_add_"), "PyTorch add_");
  EXPECT_EQ(anchor_label("cublas_tf32"), "cublas_tf32");
  EXPECT_EQ(anchor_label("cublas_fp16@4096x4096x4096"), "cublas_fp16");
  EXPECT_EQ(anchor_family("copy_8388608_bytes"), "copy");
  EXPECT_EQ(anchor_family("pytorch:torch_naive_fp32"), "PyTorch");
  EXPECT_EQ(anchor_family("cublas_fp16@4096x4096x4096"), "cublas_fp16");
}

}  // namespace
}  // namespace cudalab::viewer
