#include "model/timing_model.hpp"

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

TEST(TimingModel, ListsProblemsInFileOrder) {
  EXPECT_EQ(problems(sample()), (std::vector<std::string>{"add 8x8", "add 4x4"}));
}

TEST(TimingModel, BarsCarryTheirFractionOfCopy) {
  const TimingChart c = chart_for_problem(sample(), "add 8x8");
  ASSERT_EQ(c.versions.size(), 2u);
  EXPECT_DOUBLE_EQ(c.versions[1].fraction_of_copy, 0.9);
  EXPECT_DOUBLE_EQ(c.max_gbps, 4000);
  EXPECT_DOUBLE_EQ(*c.pytorch_gbps, 2800);  // the run-wide figure
}

TEST(TimingModel, PerProblemPytorchFigureWins) {
  const TimingChart c = chart_for_problem(sample(), "add 4x4");
  EXPECT_DOUBLE_EQ(*c.pytorch_gbps, 90);
}

TEST(TimingModel, NoCopyFigureMeansNoFraction) {
  BenchResult r = sample();
  r.copy_gbps.reset();
  EXPECT_DOUBLE_EQ(chart_for_problem(r, "add 8x8").versions[0].fraction_of_copy, 0.0);
}

}  // namespace
}  // namespace cudalab::viewer
