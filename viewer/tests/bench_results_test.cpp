#include "model/bench_results.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "cudalab/results.hpp"
#include "model/bars_model.hpp"
#include "model/ui_state.hpp"
#include "test_files.hpp"

namespace cudalab::viewer {
namespace {

const std::string kSample = std::string(CUDALAB_VIEWER_TEST_DATA) + "/bench_sample.json";

TEST(BenchResults, ReadsTheSampleFile) {
  const auto loaded = load_bench_result(kSample);
  ASSERT_TRUE(std::holds_alternative<BenchResult>(loaded)) << std::get<std::string>(loaded);
  const BenchResult& r = std::get<BenchResult>(loaded);
  ASSERT_EQ(r.versions.size(), 5u);
  EXPECT_EQ(r.versions[1].unit, "GB/s");
  EXPECT_DOUBLE_EQ(*r.versions[1].fraction, 0.876);
  EXPECT_EQ(r.versions[1].fraction_of, "copy_bandwidth");
  ASSERT_EQ(r.anchors.size(), 2u);
  EXPECT_EQ(r.anchors[0].name, "copy_bandwidth");
  EXPECT_DOUBLE_EQ(r.anchors[0].value, 4190.0);
  EXPECT_DOUBLE_EQ(r.anchors[1].value, 2820.0);
  EXPECT_EQ(problems(r).front(), "broadcast_sum 16384x16384");
  EXPECT_EQ(r.driver, "13.0");
}

TEST(BenchResults, PytorchFiguresBecomeAnchorsOfTheirProblem) {
  const std::string h200 = std::string(CUDALAB_RESULTS_DIR) + "/lab01-h200-2026-11-29.json";
  const auto loaded = load_bench_result(h200);
  ASSERT_TRUE(std::holds_alternative<BenchResult>(loaded)) << std::get<std::string>(loaded);
  const BenchResult& r = std::get<BenchResult>(loaded);
  EXPECT_EQ(r.versions.size(), 20u);  // 4 versions x 5 problems
  std::size_t per_problem = 0;
  for (const AnchorFigure& a : r.anchors) per_problem += !a.problem.empty();
  EXPECT_EQ(per_problem, 5u);
}

// The sample is a version 1 file; the writer writes version 2.
TEST(BenchResults, ReadsTheSampleRewrittenAsVersion2) {
  const auto path = std::filesystem::temp_directory_path() / "cudalab_viewer_v2.json";
  write_result(path, read_result(kSample));
  ASSERT_NE(file_text(kSample).find("cudalab.result/1"), std::string::npos);
  const auto loaded = load_bench_result(path.string());
  std::filesystem::remove(path);
  ASSERT_TRUE(std::holds_alternative<BenchResult>(loaded)) << std::get<std::string>(loaded);
  const BenchResult& r = std::get<BenchResult>(loaded);
  ASSERT_EQ(r.versions.size(), 5u);
  EXPECT_DOUBLE_EQ(*r.versions[1].fraction, 0.876);
  EXPECT_EQ(r.versions[1].fraction_of, "copy_bandwidth");
  ASSERT_EQ(r.anchors.size(), 2u);
  EXPECT_DOUBLE_EQ(r.anchors[0].value, 4190.0);
  EXPECT_DOUBLE_EQ(r.anchors[1].value, 2820.0);
}

// A file of timelines only (a streams experiment) is a result too; its
// timelines open in the timeline view whatever the lab shows.
TEST(BenchResults, TimelinesOfAFileOpenInTheTimelineView) {
  ResultFile file = new_result("streams_bench", "", 0, nullptr);
  cudalab::Timeline streams{"2 streams", {}};
  streams.rows.push_back({"stream 1", {{"matmul", 0.5, 20.5, "kernel"}}});
  streams.rows.push_back({"stream 2", {{"copy in", 0.0, 3.25, "copy"}}});
  file.add_timeline(streams);
  const auto path = std::filesystem::temp_directory_path() / "cudalab_viewer_timeline.json";
  write_result(path, file);
  const auto loaded = load_bench_result(path.string());
  ASSERT_TRUE(std::holds_alternative<BenchResult>(loaded)) << std::get<std::string>(loaded);
  const BenchResult& r = std::get<BenchResult>(loaded);
  ASSERT_EQ(r.timelines.size(), 1u);
  EXPECT_EQ(r.timelines[0].title, "2 streams");
  EXPECT_EQ(r.timelines[0].unit, "ms");
  ASSERT_EQ(r.timelines[0].rows.size(), 2u);
  EXPECT_EQ(r.timelines[0].rows[1].spans[0].name, "copy in");
  EXPECT_DOUBLE_EQ(r.timelines[0].rows[1].spans[0].end, 3.25);
  EXPECT_EQ(r.timelines[0].rows[0].spans[0].kind, "kernel");

  UiState state;  // no lab: the bars tab, then the file's timeline
  load_results(state, path.string());
  std::filesystem::remove(path);
  EXPECT_EQ(shown_panels(state),
            (std::vector<Panel>{Panel::kBars, Panel::kTimeline, Panel::kHelp}));
  ASSERT_NE(shown_timeline(state), nullptr);
  EXPECT_EQ(shown_timeline(state)->title, "2 streams");
}

TEST(BenchResults, MissingFileIsAMessage) {
  const auto loaded = load_bench_result("/nonexistent/cudalab.json");
  ASSERT_TRUE(std::holds_alternative<std::string>(loaded));
  EXPECT_NE(std::get<std::string>(loaded).find("/nonexistent/cudalab.json"), std::string::npos);
}

TEST(BenchResults, TruncatedFileIsAMessage) {
  const std::string text = file_text(kSample);
  const auto path = temp_file("cudalab_viewer_truncated.json", text.substr(0, text.size() / 2));
  const auto loaded = load_bench_result(path);
  ASSERT_TRUE(std::holds_alternative<std::string>(loaded));
  EXPECT_NE(std::get<std::string>(loaded).find(path), std::string::npos);
}

TEST(BenchResults, OtherSchemaVersionIsAMessage) {
  std::string text = file_text(kSample);
  text.replace(text.find("cudalab.result/1"), 16, "cudalab.result/9");
  const auto loaded = load_bench_result(temp_file("cudalab_viewer_v9.json", text));
  ASSERT_TRUE(std::holds_alternative<std::string>(loaded));
  EXPECT_NE(std::get<std::string>(loaded).find("cudalab.result/9"), std::string::npos)
      << std::get<std::string>(loaded);
}

TEST(BenchResults, BadFileKeepsTheAppRunningWithAMessage) {
  UiState state;
  load_results(state, kSample);
  ASSERT_TRUE(state.timing.result.has_value());
  load_results(state, "/nonexistent/cudalab.json");
  EXPECT_FALSE(state.timing.result.has_value());
  EXPECT_FALSE(state.timing.error.empty());
  load_results(state, kSample);
  EXPECT_TRUE(state.timing.error.empty());
}

}  // namespace
}  // namespace cudalab::viewer

namespace cudalab::viewer {
namespace {

const std::string kLab02Sample = std::string(CUDALAB_VIEWER_TEST_DATA) + "/lab02_bench_sample.json";

BenchResult lab02_sample() {
  auto loaded = load_bench_result(kLab02Sample);
  if (auto* error = std::get_if<std::string>(&loaded)) throw std::runtime_error(*error);
  return std::get<BenchResult>(std::move(loaded));
}

// The sample has the layout of lab02_bench's files: cuBLAS's five modes at
// 8192^3 and 10240^3, the student's GEMMs at 4096^3 and 8192^3 against
// cuBLAS anchors measured on the same shape (NAME@SHAPE), PyTorch's
// settings as torch_* versions, and error_vs_k figures (TFLOP/s, with the
// error in errors.normwise).
TEST(BenchResults, Lab02GemmFiguresAreBarsPerShape) {
  const BenchResult r = lab02_sample();
  EXPECT_EQ(problems(r), (std::vector<std::string>{"gemm 8192x8192x8192", "gemm 10240x10240x10240",
                                                   "gemm 4096x4096x4096"}));
  std::vector<std::string> versions;
  for (const Measurement& m : r.versions)
    if (m.problem == "gemm 8192x8192x8192") versions.push_back(m.version);
  // torch_* versions are bars of their own, not one "PyTorch" anchor line:
  // each is another PyTorch setting (allow_tf32, reduced-precision reduction).
  EXPECT_EQ(versions, (std::vector<std::string>{
                          "cublas_fp32", "cublas_tf32", "cublas_fp16", "cublas_bf16",
                          "cublas_fp16_acc16", "tc_gemm_fp16", "tc_gemm_tf32", "torch_fp32",
                          "torch_tf32", "torch_fp16_rpr_on", "torch_fp16_rpr_off", "torch_bf16"}));
}

// An anchor named NAME@SHAPE was measured on that shape: its line belongs on
// that shape's chart only, labelled NAME.
TEST(BenchResults, Lab02AnchorsOfAShapeStayOnThatShape) {
  const BenchResult r = lab02_sample();
  const BarChart small = bars_for_problem(r, "gemm 4096x4096x4096");
  ASSERT_EQ(small.anchors.size(), 2u);
  EXPECT_EQ(small.anchors[0].name, "cublas_fp16");
  EXPECT_EQ(small.anchors[0].value, 700.0);
  EXPECT_EQ(small.anchors[1].name, "cublas_tf32");
  EXPECT_EQ(small.anchors[1].value, 370.0);
  EXPECT_EQ(bar_text(small, small.bars[0]), "280 TFLOP/s  40% of cublas_fp16  0.491 ms");
  const BarChart big = bars_for_problem(r, "gemm 8192x8192x8192");
  ASSERT_EQ(big.anchors.size(), 2u);
  EXPECT_EQ(big.anchors[0].value, 710.0);
  EXPECT_TRUE(bars_for_problem(r, "gemm 10240x10240x10240").anchors.empty());
}

TEST(BenchResults, ErrorVsKFiguresAreAnErrorPlotNotBars) {
  const BenchResult r = lab02_sample();
  for (const Measurement& m : r.versions) EXPECT_NE(m.problem.rfind("error_vs_k", 0), 0u);
  ASSERT_TRUE(r.error_vs_k.has_value());
  const ErrorPlot& plot = *r.error_vs_k;
  EXPECT_EQ(plot.x_label, "K");
  ASSERT_EQ(plot.series.size(), 5u);
  EXPECT_EQ(plot.series[0].name, "cublas_fp32");
  ASSERT_EQ(plot.series[4].points.size(), 5u);
  EXPECT_EQ(plot.series[4].name, "cublas_fp16_acc16");
  EXPECT_EQ(plot.series[4].points[4].x, 65536);
  EXPECT_EQ(plot.series[4].points[4].y, 3.1e-2);  // errors.normwise, not the TFLOP/s
  EXPECT_NE(plot.title.find("256x256"), std::string::npos) << plot.title;
}

TEST(BenchResults, ErrorVsKPointsSortByKAndNeedAnError) {
  ResultFile file = read_result(kLab02Sample);
  std::erase_if(file.figures, [](const Figure& f) { return f.name != kErrorVsKFigure; });
  std::reverse(file.figures.begin(), file.figures.end());
  file.figures.front().errors.reset();  // a TFLOP/s figure with no error: no point
  Figure plain = file.figures.back();   // an error as the value itself
  plain.version = "mine";
  plain.unit = "relative error";
  plain.value = 0.5;
  plain.errors.reset();
  file.figures.push_back(plain);
  const auto path = std::filesystem::temp_directory_path() / "cudalab_viewer_error_points.json";
  write_result(path, file);
  auto loaded = load_bench_result(path.string());
  std::filesystem::remove(path);
  ASSERT_TRUE(std::holds_alternative<BenchResult>(loaded)) << std::get<std::string>(loaded);
  const ErrorPlot& plot = *std::get<BenchResult>(loaded).error_vs_k;
  ASSERT_EQ(plot.series.size(), 6u);
  // Series in the order their first point appears: K = 65536 of
  // cublas_fp16_acc16, the reversed file's first figure, had no error.
  EXPECT_EQ(plot.series[0].name, "cublas_bf16");
  const Series& acc16 = *std::find_if(plot.series.begin(), plot.series.end(), [](const Series& x) {
    return x.name == "cublas_fp16_acc16";
  });
  ASSERT_EQ(acc16.points.size(), 4u);
  EXPECT_EQ(acc16.points.back().x, 16384);
  for (std::size_t i = 1; i < plot.series[0].points.size(); ++i)
    EXPECT_LT(plot.series[0].points[i - 1].x, plot.series[0].points[i].x);
  EXPECT_EQ(plot.series[5].name, "mine");
  EXPECT_EQ(plot.series[5].points.at(0).y, 0.5);
}

TEST(BenchResults, AFileOfErrorsAloneLoadsAndAddsTheErrorView) {
  ResultFile file = read_result(kLab02Sample);
  std::erase_if(file.figures, [](const Figure& f) { return f.name != kErrorVsKFigure; });
  const auto path = std::filesystem::temp_directory_path() / "cudalab_viewer_errors_only.json";
  write_result(path, file);
  UiState state;
  load_results(state, path.string());
  ASSERT_TRUE(state.timing.error.empty()) << state.timing.error;
  EXPECT_TRUE(shown(state, Panel::kErrors));
  ASSERT_NE(shown_errors(state), nullptr);
  EXPECT_EQ(shown_errors(state)->series.size(), 5u);
  // A run's own plot is shown when the user picks it.
  state.errors = ErrorPlot{"run", "K", "error", {{"mine", {{1, 1}}}}};
  EXPECT_EQ(shown_errors(state)->series.size(), 5u);  // the file's, picked on load
  state.errors_view.from_file = false;
  EXPECT_EQ(shown_errors(state)->title, "run");
  std::filesystem::remove(path);
}

// Lab 04's bench on 2 x H200: busbw figures of shape {ranks, bytes} become
// one series per collective and version against the message size.
TEST(BenchResults, Lab04BusbwFiguresBecomeSeriesAgainstTheMessageSize) {
  const std::string path = std::string(CUDALAB_RESULTS_DIR) + "/lab04-2xh200-2026-11-30.json";
  const auto loaded = load_bench_result(path);
  ASSERT_TRUE(std::holds_alternative<BenchResult>(loaded)) << std::get<std::string>(loaded);
  const BenchResult& r = std::get<BenchResult>(loaded);
  ASSERT_TRUE(r.busbw_vs_size.has_value());
  EXPECT_FALSE(r.error_vs_k.has_value());
  const ErrorPlot& plot = *r.busbw_vs_size;
  EXPECT_EQ(plot.x_log_base, 2);
  EXPECT_EQ(plot.y_label, "busbw (GB/s)");
  EXPECT_NE(plot.title.find("2 ranks"), std::string::npos) << plot.title;
  std::vector<std::string> names;
  for (const Series& s : plot.series) names.push_back(s.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"all_reduce nccl", "all_gather nccl", "reduce_scatter nccl",
                                      "broadcast nccl", "all_reduce ring"}));
  std::size_t points = 0;
  for (const Series& s : plot.series) {
    points += s.points.size();
    for (std::size_t i = 1; i < s.points.size(); ++i)
      EXPECT_LT(s.points[i - 1].x, s.points[i].x) << s.name << ": sorted by size";
  }
  EXPECT_EQ(points, 35u);  // every figure of the file is a point
  // ncclAllReduce at 1 GiB, as the file's anchor of that size says.
  const Series& nccl = plot.series.front();
  EXPECT_DOUBLE_EQ(nccl.points.front().x, 1024);
  EXPECT_DOUBLE_EQ(nccl.points.back().x, 1073741824);
  EXPECT_NEAR(nccl.points.back().y, 324.3196, 1e-3);
  EXPECT_EQ(file_plot(r), &*r.busbw_vs_size);
  // Still bars too: one problem per collective and size.
  EXPECT_EQ(r.versions.size(), 35u);
}

TEST(BenchResults, FilesWithoutBusbwFiguresHaveNoBusbwPlot) {
  const auto loaded = load_bench_result(kSample);
  ASSERT_TRUE(std::holds_alternative<BenchResult>(loaded)) << std::get<std::string>(loaded);
  EXPECT_FALSE(std::get<BenchResult>(loaded).busbw_vs_size.has_value());
  EXPECT_EQ(file_plot(std::get<BenchResult>(loaded)), nullptr);
}

}  // namespace
}  // namespace cudalab::viewer
