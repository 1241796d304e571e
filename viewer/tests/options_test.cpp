#include "model/options.hpp"

#include <gtest/gtest.h>

#include "model/lab_source.hpp"

namespace cudalab::viewer {
namespace {

TEST(ViewerOptions, ParsesExtents) {
  EXPECT_EQ(parse_extent("64x100"), (std::pair<std::uint64_t, std::uint64_t>{64, 100}));
  EXPECT_FALSE(parse_extent("64").has_value());
  EXPECT_FALSE(parse_extent("0x5").has_value());
  EXPECT_FALSE(parse_extent("4x5x6").has_value());
  EXPECT_FALSE(parse_extent("4xa").has_value());
}

TEST(ViewerOptions, ParsesDim3) {
  EXPECT_EQ(parse_dim3("256"), (Dim3{256, 1, 1}));
  EXPECT_EQ(parse_dim3("32,8"), (Dim3{32, 8, 1}));
  EXPECT_FALSE(parse_dim3("32,0").has_value());
  EXPECT_FALSE(parse_dim3("").has_value());
  EXPECT_FALSE(parse_dim3("1,2,3,4").has_value());
}

TEST(ViewerOptions, RefusesRunsNobodyShouldEmulate) {
  RunRequest r;
  r.rows = 10;
  r.cols = 10;
  EXPECT_FALSE(validate(r, 1000).has_value());
  r.block = {2048, 1, 1};
  EXPECT_NE(validate(r, 1000).value_or("").find("1024"), std::string::npos);
  r.block = {256, 1, 1};
  r.rows = 1000;
  EXPECT_NE(validate(r, 1000).value_or("").find("10000 elements"), std::string::npos);
}

TEST(ViewerOptions, ModelSourceReportsBadRequestsInsteadOfRunning) {
  const auto lab = make_lab01_model_source();
  RunRequest r;
  r.rows = 0;
  r.cols = 5;
  const RunOutcome out = lab->run(r);
  EXPECT_FALSE(out.run.has_value());
  EXPECT_NE(out.error.find("empty"), std::string::npos);
}

}  // namespace
}  // namespace cudalab::viewer
