// The lab interface and the state built on it, with a lab made up here.
#include "model/lab_source.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "model/ui_state.hpp"

namespace cudalab::viewer {
namespace {

class FakeLab final : public LabSource {
 public:
  explicit FakeLab(std::vector<View> views, bool launch = true)
      : views_(std::move(views)), launch_(launch) {}
  std::string title() const override { return "99 fake"; }
  std::string code_origin() const override { return "here"; }
  std::vector<Version> versions() const override { return {{"v0", ""}, {"v1", ""}}; }
  std::vector<View> views() const override { return views_; }
  std::vector<Parameter> parameters() const override {
    return {{"n", "n", 1, 100, 10}, {"k", "k", -5, 5, 0}};
  }
  bool has_launch_config() const override { return launch_; }
  RunOutcome run(const RunRequest&) const override { return {}; }

 private:
  std::vector<View> views_;
  bool launch_;
};

TEST(LabSource, DefaultRequestTakesTheInitialValues) {
  const FakeLab lab({View::kTimeline});
  const RunRequest r = default_request(lab);
  EXPECT_EQ(r.version, 0u);
  EXPECT_EQ(r.values, (std::vector<std::int64_t>{10, 0}));
  EXPECT_EQ(parameter_index(lab, "k"), 1u);
  EXPECT_FALSE(parameter_index(lab, "rows").has_value());
}

TEST(LabSource, RefusesValuesOutsideTheirRange) {
  const FakeLab lab({View::kTimeline});
  RunRequest r = default_request(lab);
  EXPECT_FALSE(validate(lab, r).has_value());
  r.values[1] = 6;
  EXPECT_NE(validate(lab, r).value_or("").find("k must be in -5 .. 5"), std::string::npos);
  r.values = {10};
  EXPECT_NE(validate(lab, r).value_or("").find("2 parameters"), std::string::npos);
  r = default_request(lab);
  r.version = 2;
  EXPECT_TRUE(validate(lab, r).has_value());
}

TEST(LabSource, RefusesLaunchesNobodyShouldRun) {
  const FakeLab lab({View::kIndexing});
  RunRequest r = default_request(lab);
  r.block = {2048, 1, 1};
  EXPECT_NE(validate(lab, r).value_or("").find("1024"), std::string::npos);
  r.block = {256, 1, 1};
  r.auto_grid = false;
  r.grid = {1, 70000, 1};
  EXPECT_NE(validate(lab, r).value_or("").find("65535"), std::string::npos);
  // A lab without a launch configuration ignores the launch fields.
  const FakeLab no_launch({View::kIndexing}, false);
  RunRequest ignored = default_request(no_launch);
  ignored.block = {0, 1, 1};
  EXPECT_FALSE(validate(no_launch, ignored).has_value());
}

TEST(LabSource, TabsAreTheLabsViewsThenHelp) {
  UiState state;
  state.labs.push_back(std::make_unique<FakeLab>(std::vector<View>{View::kTiles, View::kIndexing}));
  select_lab(state, 0);
  EXPECT_EQ(shown_panels(state),
            (std::vector<Panel>{Panel::kIndexing, Panel::kTiles, Panel::kHelp}));
  EXPECT_TRUE(shown(state, Panel::kTiles));
  EXPECT_FALSE(shown(state, Panel::kBars));
  EXPECT_EQ(state.request.values, (std::vector<std::int64_t>{10, 0}));
}

TEST(LabSource, WithoutALabResultFilesStillHaveATab) {
  UiState state;
  EXPECT_EQ(shown_panels(state), (std::vector<Panel>{Panel::kBars, Panel::kHelp}));
}

TEST(LabSource, AVersionFillsItsOwnViewsOrAllButTheBars) {
  const FakeLab lab({View::kTiles, View::kBars, View::kIndexing});
  EXPECT_EQ(views_filled(lab, 0), (std::vector<View>{View::kTiles, View::kIndexing}));
  EXPECT_TRUE(fills(lab, 1, View::kIndexing));
  EXPECT_FALSE(fills(lab, 1, View::kBars));
}

// A skeleton's exception names its exercise ("exercise 3: gemm_fp64 is not
// written yet"); the sentence says what to do first and where to read more.
TEST(LabSource, NotDoneYetNamesTheExerciseAndTheCommand) {
  const FakeLab lab({View::kErrors});
  EXPECT_EQ(not_done_yet(lab, 2, "exercise 3: gemm_fp64 is not written yet"),
            "exercise 3 is not done yet: gemm_fp64 is not written yet. `./lab run 99` says what "
            "is right and what is wrong.");
  EXPECT_EQ(not_done_yet(lab, 4, "its kernel wrote nothing.\n"),
            "exercise 4 is not done yet: its kernel wrote nothing. `./lab run 99` says what is "
            "right and what is wrong.");
}

TEST(LabSource, ShowsSomethingOnlyWithSomethingToDraw) {
  RunOutcome out;
  out.timeline = Timeline{"t", "ms", {{"row", {}}}};
  EXPECT_FALSE(shows_something(out, View::kTimeline));  // rows without a span
  out.timeline->rows[0].spans.push_back({"k", 0, 1, "kernel"});
  EXPECT_TRUE(shows_something(out, View::kTimeline));
  out.run = KernelRun{};
  EXPECT_FALSE(shows_something(out, View::kCoalescing));  // a kernel that touched nothing
  EXPECT_FALSE(shows_something(out, View::kTiles));
  EXPECT_TRUE(shows_something(out, View::kBars));  // from a result file, not a run
}

// Lab code that throws (a skeleton's TODO) must not end the viewer (lab 02's
// error view used to exit without an image): the views the version fills
// say the run stopped and where to read why.
class ThrowingLab final : public LabSource {
 public:
  std::string title() const override { return "98 throws"; }
  std::string code_origin() const override { return "here"; }
  std::vector<Version> versions() const override { return {{"v0", "", false, {View::kErrors}}}; }
  std::vector<View> views() const override { return {View::kBitLayout, View::kErrors}; }
  std::vector<Parameter> parameters() const override { return {}; }
  RunOutcome run(const RunRequest&) const override {
    throw std::logic_error("exercise 3: gemm_fp64 is not written yet");
  }
};

TEST(LabSource, ARunThatThrowsSaysSoInTheViewsItFills) {
  UiState state;
  state.labs.push_back(std::make_unique<ThrowingLab>());
  select_lab(state, 0);
  start_pending_run(state);
  EXPECT_NO_THROW(collect_run(state, true));
  EXPECT_NE(state.run_error.find("gemm_fp64 is not written yet"), std::string::npos);
  const std::string said = unfinished_text(state, Panel::kErrors);
  EXPECT_NE(said.find("gemm_fp64 is not written yet"), std::string::npos) << said;
  EXPECT_NE(said.find("`./lab run 98`"), std::string::npos) << said;
  EXPECT_EQ(unfinished_text(state, Panel::kBitLayout), "");  // v0 does not fill it
}

TEST(LabSource, PanelNamesRoundTrip) {
  for (int p = 0; p < kPanelCount; ++p)
    EXPECT_EQ(panel_from_name(kPanelNames[p]), static_cast<Panel>(p));
  EXPECT_EQ(panel_of(View::kErrors), Panel::kErrors);
  EXPECT_FALSE(panel_from_name("bogus").has_value());
  EXPECT_NE(panel_names().find("tiles"), std::string::npos);
}

}  // namespace
}  // namespace cudalab::viewer
