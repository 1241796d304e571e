#include "model/options.hpp"

#include <gtest/gtest.h>

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

TEST(ViewerOptions, ParsesParameterAssignments) {
  EXPECT_EQ(parse_assignment("rows=300"), (std::pair<std::string, std::int64_t>{"rows", 300}));
  EXPECT_EQ(parse_assignment("k=-2"), (std::pair<std::string, std::int64_t>{"k", -2}));
  EXPECT_FALSE(parse_assignment("rows").has_value());
  EXPECT_FALSE(parse_assignment("=3").has_value());
  EXPECT_FALSE(parse_assignment("rows=").has_value());
  EXPECT_FALSE(parse_assignment("rows=3x").has_value());
  EXPECT_EQ(parse_assignment("value_bits=0x3f801000"),
            (std::pair<std::string, std::int64_t>{"value_bits", 0x3f801000}));
  EXPECT_FALSE(parse_assignment("value_bits=0x").has_value());
  EXPECT_FALSE(parse_assignment("value_bits=0x-1").has_value());
}

}  // namespace
}  // namespace cudalab::viewer
