#include "model/fragment_model.hpp"

#include <gtest/gtest.h>

#include <set>

#include "cudalab/numerics/mma_layout.hpp"

namespace cudalab::viewer {
namespace {

namespace nx = cudalab::numerics;

// Every element is owned by exactly one (lane, element) and every (lane,
// element) of mma_layout.hpp owns exactly one element, the one it names.
template <typename Coord>
void expect_matches_layout(const FragmentMatrix& m, int per_lane, Coord coord) {
  ASSERT_EQ(m.owners.size(), static_cast<std::size_t>(m.rows * m.cols));
  std::set<std::pair<int, int>> owners;
  for (int r = 0; r < m.rows; ++r)
    for (int c = 0; c < m.cols; ++c) {
      const FragmentOwner& o = m.at(r, c);
      ASSERT_GE(o.lane, 0) << m.name << "[" << r << "][" << c << "] has no owner";
      EXPECT_TRUE(owners.insert({o.lane, o.element}).second)
          << m.name << ": lane " << o.lane << " element " << o.element << " owns two elements";
      const nx::MatrixCoord at = coord(o.lane, o.element);
      EXPECT_EQ(at.row, r);
      EXPECT_EQ(at.col, c);
    }
  EXPECT_EQ(owners.size(), static_cast<std::size_t>(32 * per_lane)) << m.name;
}

TEST(FragmentModel, M16n8k16MatchesTheMmaLayout) {
  const FragmentLayout l = fragment_layout(MmaShape::kM16N8K16);
  EXPECT_EQ(l.k(), 16);
  EXPECT_EQ(l.b.rows, 16);
  EXPECT_EQ(l.b.cols, 8);
  expect_matches_layout(l.a, 8, nx::m16n8k16_a_element);
  expect_matches_layout(l.b, 4, nx::m16n8k16_b_element);
  expect_matches_layout(l.c, 4, nx::m16n8_c_element);
}

TEST(FragmentModel, M16n8k8Tf32MatchesTheMmaLayout) {
  const FragmentLayout l = fragment_layout(MmaShape::kM16N8K8Tf32);
  EXPECT_EQ(l.k(), 8);
  expect_matches_layout(l.a, 4, nx::m16n8k8_tf32_a_element);
  expect_matches_layout(l.b, 2, nx::m16n8k8_tf32_b_element);
  expect_matches_layout(l.c, 4, nx::m16n8_c_element);
}

TEST(FragmentModel, PackedRegistersHoldTwoHalves) {
  const FragmentLayout l = fragment_layout(MmaShape::kM16N8K16);
  // Lane 0 (group 0, thread 0): a0 = A[0][0], A[0][1]; a1 = A[8][0..1];
  // a2 = A[0][8..9]; a3 = A[8][8..9].
  EXPECT_EQ(register_label(l.a, l.a.at(0, 0)), "a0.lo");
  EXPECT_EQ(register_label(l.a, l.a.at(0, 1)), "a0.hi");
  EXPECT_EQ(register_label(l.a, l.a.at(8, 0)), "a1.lo");
  EXPECT_EQ(register_label(l.a, l.a.at(0, 9)), "a2.hi");
  EXPECT_EQ(register_label(l.a, l.a.at(8, 8)), "a3.lo");
  EXPECT_EQ(l.a.at(8, 8).lane, 0);
  // C is fp32: one element per register.
  EXPECT_EQ(register_label(l.c, l.c.at(9, 1)), "c3");
  EXPECT_EQ(l.c.at(9, 1).lane, 4);  // group 1, thread 0
  const FragmentLayout t = fragment_layout(MmaShape::kM16N8K8Tf32);
  EXPECT_EQ(register_label(t.a, t.a.at(8, 4)), "a3");
}

TEST(FragmentModel, ALaneHoldsItsElementsInRegisterOrder) {
  const FragmentLayout l = fragment_layout(MmaShape::kM16N8K16);
  const auto held = elements_of_lane(l.b, 5);  // group 1, thread 1
  const std::vector<std::pair<int, int>> expected = {{2, 1}, {3, 1}, {10, 1}, {11, 1}};
  EXPECT_EQ(held, expected);
  EXPECT_EQ(describe_element(l.b, 10, 1),
            "B[10][1]: lane 5 (group 1, thread 1), register b1.lo (element 2)");
}

TEST(FragmentModel, EveryLaneHasItsOwnColourAndOthersDim) {
  std::set<std::tuple<int, int, int>> colours;
  for (int lane = 0; lane < 32; ++lane) {
    const Rgba c = lane_colour(lane);
    colours.insert({c.r, c.g, c.b});
  }
  EXPECT_EQ(colours.size(), 32u);
  EXPECT_EQ(fragment_cell_colour(3, std::nullopt), lane_colour(3));
  EXPECT_EQ(fragment_cell_colour(3, 3), lane_colour(3));
  EXPECT_NE(fragment_cell_colour(3, 4), lane_colour(3));
}

}  // namespace
}  // namespace cudalab::viewer
