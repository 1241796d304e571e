#include "model/bars_model.hpp"

#include <gtest/gtest.h>

namespace cudalab::viewer {
namespace {

BenchResult sample() {
  BenchResult r;
  r.copy_gbps = 4000;
  r.pytorch_gbps = 2800;
  r.versions = {
      {"v1", "add 8x8", 2.0, 400}, {"v3", "add 8x8", 0.5, 3600}, {"v1", "add 4x4", 1.0, 100}};
  r.pytorch = {{"pytorch", "add 4x4", 1.0, 90}};
  return r;
}

TEST(BarsModel, ListsProblemsInFileOrder) {
  EXPECT_EQ(problems(sample()), (std::vector<std::string>{"add 8x8", "add 4x4"}));
}

TEST(BarsModel, BarsCarryTheirFractionOfTheCopyAnchor) {
  const BarChart c = bars_for_problem(sample(), "add 8x8");
  ASSERT_EQ(c.bars.size(), 2u);
  EXPECT_EQ(c.unit, "GB/s");
  EXPECT_EQ(c.fraction_anchor, "copy");
  EXPECT_DOUBLE_EQ(*c.bars[1].fraction, 0.9);
  EXPECT_DOUBLE_EQ(c.max_value, 4000);
  ASSERT_EQ(c.anchors.size(), 2u);
  EXPECT_EQ(c.anchors[1].name, "PyTorch");
  EXPECT_DOUBLE_EQ(c.anchors[1].value, 2800);  // the run-wide figure
}

TEST(BarsModel, PerProblemPytorchFigureWins) {
  const BarChart c = bars_for_problem(sample(), "add 4x4");
  EXPECT_DOUBLE_EQ(c.anchors[1].value, 90);
}

TEST(BarsModel, NoCopyFigureMeansNoFractionAndNoCopyLine) {
  BenchResult r = sample();
  r.copy_gbps.reset();
  const BarChart c = bars_for_problem(r, "add 8x8");
  EXPECT_FALSE(c.bars[0].fraction.has_value());
  ASSERT_EQ(c.anchors.size(), 1u);
  EXPECT_EQ(c.anchors[0].name, "PyTorch");
}

TEST(BarsModel, BarTextNamesUnitFractionAndTime) {
  const BarChart c = bars_for_problem(sample(), "add 8x8");
  EXPECT_EQ(bar_text(c, c.bars[1]), "3600 GB/s  90% of copy  0.500 ms");
  const Bar small{"tiny", 0.0123, 0, std::nullopt};
  EXPECT_EQ(bar_text(c, small), "0.0123 GB/s");
}

}  // namespace
}  // namespace cudalab::viewer
