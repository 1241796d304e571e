// Lab 02 in the viewer: the parameters reach the bit layout and the fragment
// layout, and the error-vs-K versions run the lab's code on the emulator.
// The lab's exercises are graded elsewhere; here only the plumbing and what
// cudalab::numerics says are checked, never the lab code's figures.
#include <gtest/gtest.h>

#include <cmath>

#include "cudalab/numerics.hpp"
#include "model/lab_source.hpp"
#include "model/ui_state.hpp"

namespace cudalab::viewer {
namespace {

std::unique_ptr<LabSource> lab02() {
  for (auto& lab : available_labs())
    if (lab->title() == "02 precision") return std::move(lab);
  return nullptr;
}

RunRequest request(const LabSource& lab, std::size_t version,
                   std::vector<std::pair<std::string, std::int64_t>> values) {
  RunRequest r = default_request(lab);
  r.version = version;
  for (const auto& [name, value] : values) r.values[*parameter_index(lab, name)] = value;
  return r;
}

// The skeleton's exercises 2 and 3 throw ("exercise 3: gemm_fp64 is not
// written yet"): no plot, and the error view says so.
bool skeleton_not_done(const RunOutcome& out) {
  return !out.errors && out.unfinished.count(View::kErrors) > 0;
}

TEST(Lab02View, IsListedWithItsViews) {
  const auto lab = lab02();
  ASSERT_NE(lab, nullptr);
  EXPECT_TRUE(shows(*lab, View::kBitLayout));
  EXPECT_TRUE(shows(*lab, View::kFragments));
  EXPECT_TRUE(shows(*lab, View::kErrors));
  EXPECT_TRUE(shows(*lab, View::kBars));
  EXPECT_FALSE(lab->has_launch_config());
  for (const char* name : {"value_bits", "mma_k", "m", "k_min", "k_max"})
    EXPECT_TRUE(parameter_index(*lab, name).has_value()) << name;
}

// The views that need no GEMM come first: the window opens on the bit layout.
TEST(Lab02View, TabsStartWithTheBitLayout) {
  UiState state;
  state.labs = available_labs();
  for (std::size_t i = 0; i < state.labs.size(); ++i)
    if (state.labs[i]->title() == "02 precision") select_lab(state, i);
  ASSERT_EQ(state.lab_source()->title(), "02 precision");
  EXPECT_EQ(shown_panels(state), (std::vector<Panel>{Panel::kBitLayout, Panel::kFragments,
                                                     Panel::kBars, Panel::kErrors, Panel::kHelp}));
  EXPECT_TRUE(set_lab_parameter(state, "value_bits", 0x358637bd));
  EXPECT_EQ(state.request.values[*parameter_index(*state.lab_source(), "value_bits")], 0x358637bd);
  EXPECT_FALSE(set_lab_parameter(state, "mma_k", 17));  // out of its range
  EXPECT_FALSE(set_lab_parameter(state, "rows", 3));    // not a lab 02 parameter
}

TEST(Lab02View, TheValueParameterIsAnFp32Pattern) {
  const auto lab = lab02();
  ASSERT_NE(lab, nullptr);
  const RunOutcome out = lab->run(request(*lab, 0, {{"value_bits", 0x477ff000}}));  // 65520
  ASSERT_TRUE(out.bits.has_value()) << out.error;
  EXPECT_EQ(out.bits->input, 65520.0f);
  EXPECT_TRUE(out.bits->formats.back().overflowed);  // fp16
  EXPECT_FALSE(out.errors.has_value());              // the formats version runs no GEMM
}

TEST(Lab02View, MmaKPicksTheFragmentShape) {
  const auto lab = lab02();
  ASSERT_NE(lab, nullptr);
  const RunOutcome k16 = lab->run(request(*lab, 0, {{"mma_k", 16}}));
  ASSERT_TRUE(k16.fragments.has_value()) << k16.error;
  EXPECT_EQ(k16.fragments->shape, MmaShape::kM16N8K16);
  const RunOutcome k8 = lab->run(request(*lab, 0, {{"mma_k", 8}}));
  ASSERT_TRUE(k8.fragments.has_value()) << k8.error;
  EXPECT_EQ(k8.fragments->shape, MmaShape::kM16N8K8Tf32);
  const RunOutcome k12 = lab->run(request(*lab, 0, {{"mma_k", 12}}));
  EXPECT_FALSE(k12.has_data());
  EXPECT_NE(k12.error.find("mma_k"), std::string::npos) << k12.error;
}

TEST(Lab02View, RefusesAnEmptyKRange) {
  const auto lab = lab02();
  ASSERT_NE(lab, nullptr);
  const RunOutcome out = lab->run(request(*lab, 1, {{"k_min", 512}, {"k_max", 256}}));
  EXPECT_FALSE(out.has_data());
  EXPECT_NE(out.error.find("k_min"), std::string::npos) << out.error;
}

// One series per GEMM mode, one K per power of two of the range; the values
// are whatever the lab code computes (placeholders while it is written).
TEST(Lab02View, ErrorVsKHasASeriesPerModeOverTheKRange) {
  const auto lab = lab02();
  ASSERT_NE(lab, nullptr);
  const RunOutcome out = lab->run(request(*lab, 1, {{"m", 3}, {"k_min", 16}, {"k_max", 64}}));
  if (skeleton_not_done(out)) GTEST_SKIP() << out.unfinished.at(View::kErrors);
  ASSERT_TRUE(out.errors.has_value()) << out.error;
  ASSERT_EQ(out.errors->series.size(), 5u);
  EXPECT_EQ(out.errors->series[0].name, "cuBLAS fp32");
  EXPECT_EQ(out.errors->x_label, "K");
  for (const Series& s : out.errors->series) {
    for (const PlotPoint& p : s.points) {
      EXPECT_TRUE(p.x == 16 || p.x == 32 || p.x == 64) << s.name << " " << p.x;
      EXPECT_TRUE(std::isfinite(p.y) && p.y >= 0) << s.name;
    }
    if (out.error.empty()) {
      EXPECT_EQ(s.points.size(), 3u) << s.name;
    }
  }
  // The same request again is the same plot (the screenshot check relies on it).
  const RunOutcome again = lab->run(request(*lab, 1, {{"m", 3}, {"k_min", 16}, {"k_max", 64}}));
  ASSERT_TRUE(again.errors.has_value());
  for (std::size_t s = 0; s < out.errors->series.size(); ++s)
    ASSERT_EQ(again.errors->series[s].points.size(), out.errors->series[s].points.size());
}

TEST(Lab02View, TensorCoreVersionStopsAtKOf4096) {
  const auto lab = lab02();
  ASSERT_NE(lab, nullptr);
  const RunOutcome out = lab->run(request(*lab, 2, {{"m", 1}, {"k_min", 2048}, {"k_max", 65536}}));
  if (skeleton_not_done(out)) GTEST_SKIP() << out.unfinished.at(View::kErrors);
  ASSERT_TRUE(out.errors.has_value()) << out.error;
  for (const Series& s : out.errors->series)
    for (const PlotPoint& p : s.points) EXPECT_LE(p.x, 4096) << s.name;
  EXPECT_NE(out.errors->title.find("K up to 4096"), std::string::npos) << out.errors->title;
}

TEST(Lab02View, TensorCoreVersionAddsTheStudentsGemms) {
  const auto lab = lab02();
  ASSERT_NE(lab, nullptr);
  const RunOutcome out = lab->run(request(*lab, 2, {{"m", 5}, {"k_min", 16}, {"k_max", 32}}));
  if (skeleton_not_done(out)) GTEST_SKIP() << out.unfinished.at(View::kErrors);
  ASSERT_TRUE(out.errors.has_value()) << out.error;
  std::vector<std::string> names;
  for (const Series& s : out.errors->series) names.push_back(s.name);
  EXPECT_EQ(names, (std::vector<std::string>{"cuBLAS tf32", "cuBLAS fp16 (fp32 accumulate)",
                                             "your tc_gemm_fp16", "your tc_gemm_tf32"}));
}

// Issue 35: on the skeleton the error view's run threw and the viewer exited
// without an image. The error versions never throw: with the reference they
// plot, and where an exercise is not done the error view says which, while
// the bit layout and the fragments still show.
TEST(Lab02View, TheErrorViewSaysWhichExerciseIsNotDoneYet) {
  const auto lab = lab02();
  ASSERT_NE(lab, nullptr);
  for (std::size_t version : {1u, 2u}) {
    RunOutcome out;
    ASSERT_NO_THROW(out =
                        lab->run(request(*lab, version, {{"m", 2}, {"k_min", 16}, {"k_max", 32}})));
    EXPECT_TRUE(out.bits && out.fragments);
    if (lab->code_origin().find("reference") != std::string::npos) {
      EXPECT_TRUE(out.errors.has_value()) << out.error;
      EXPECT_TRUE(out.unfinished.empty());
      continue;
    }
    if (out.errors) continue;  // the student's exercises 2 and 3 are done
    ASSERT_TRUE(out.unfinished.count(View::kErrors)) << out.error;
    const std::string& said = out.unfinished.at(View::kErrors);
    EXPECT_NE(said.find("is not done yet: "), std::string::npos) << said;
    EXPECT_NE(said.find("`./lab run 02`"), std::string::npos) << said;
    EXPECT_EQ(out.unfinished.count(View::kBitLayout), 0u);
  }
}

}  // namespace
}  // namespace cudalab::viewer
