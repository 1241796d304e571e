#include "model/bars_model.hpp"

#include <gtest/gtest.h>

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
  ASSERT_EQ(c.anchors.size(), 2u);
  EXPECT_EQ(c.anchors[0].name, "copy");
  EXPECT_EQ(c.anchors[1].name, "PyTorch");
  EXPECT_DOUBLE_EQ(c.anchors[1].value, 2800);  // the run-wide figure
}

TEST(BarsModel, PerProblemAnchorWins) {
  const BarChart c = bars_for_problem(sample(), "add 4x4");
  ASSERT_EQ(c.anchors.size(), 2u);
  EXPECT_DOUBLE_EQ(c.anchors[1].value, 90);
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
  EXPECT_EQ(anchor_label("pytorch:broadcast_add"), "PyTorch");
  EXPECT_EQ(anchor_label("cublas_tf32"), "cublas_tf32");
}

}  // namespace
}  // namespace cudalab::viewer
