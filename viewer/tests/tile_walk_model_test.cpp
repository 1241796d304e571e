#include "model/tile_walk_model.hpp"

#include <gtest/gtest.h>

namespace cudalab::viewer {
namespace {

constexpr std::uint32_t kA = 0, kB = 1, kC = 2;

// A 2 x 2 tiled matmul: program (i, j) reads A(i, k) and B(k, j) at step k.
TileWalk matmul_2x2() {
  TileWalk walk;
  walk.grids = {{"A", 2, 2}, {"B", 2, 2}, {"C", 2, 2}};
  for (std::uint32_t i = 0; i < 2; ++i)
    for (std::uint32_t j = 0; j < 2; ++j) {
      ProgramWalk p{"program", {}};
      for (std::uint32_t k = 0; k < 2; ++k) p.steps.push_back({{kA, i, k}, {kB, k, j}});
      p.steps.back().push_back({kC, i, j});
      walk.programs.push_back(p);
    }
  return walk;
}

TEST(TileWalkModel, CountsProgramsPerTileAtAStep) {
  const TileWalk walk = matmul_2x2();
  EXPECT_EQ(step_count(walk), 2u);
  // Step 0: A(0,0) and A(1,0) are each read by the two programs of their row.
  EXPECT_EQ(touches_at(walk, kA, 0), (std::vector<std::uint32_t>{2, 0, 2, 0}));
  EXPECT_EQ(touches_at(walk, kB, 1), (std::vector<std::uint32_t>{0, 0, 2, 2}));
  EXPECT_EQ(touches_at(walk, kC, 0), (std::vector<std::uint32_t>{0, 0, 0, 0}));
  EXPECT_EQ(touches_at(walk, kC, 1), (std::vector<std::uint32_t>{1, 1, 1, 1}));
  EXPECT_EQ(touches_at(walk, kA, 7), (std::vector<std::uint32_t>{0, 0, 0, 0}));
}

TEST(TileWalkModel, KnowsWhichTilesAProgramTouches) {
  const TileWalk walk = matmul_2x2();
  EXPECT_TRUE(touches(walk, 1, 1, {kB, 1, 1}));  // program (0, 1) at step 1
  EXPECT_FALSE(touches(walk, 1, 1, {kB, 0, 1}));
  EXPECT_FALSE(touches(walk, 9, 0, {kA, 0, 0}));
}

TEST(TileWalkModel, StepsFromATraceSplitWhenAGridComesBack) {
  const std::vector<TileTouch> trace = {{kA, 0, 0}, {kB, 0, 1}, {kA, 0, 0},
                                        {kA, 0, 1}, {kB, 1, 1}, {kC, 0, 1}};
  const auto steps = steps_from_trace(trace);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0], (std::vector<TileTouch>{{kA, 0, 0}, {kB, 0, 1}}));  // A(0,0) twice: once
  EXPECT_EQ(steps[1], (std::vector<TileTouch>{{kA, 0, 1}, {kB, 1, 1}, {kC, 0, 1}}));
}

TEST(TileWalkModel, ColoursSetTheSelectedProgramApart) {
  EXPECT_EQ(tile_colour(3, 4, true), kTileSelected);
  EXPECT_EQ(tile_colour(0, 4, false), kTileIdle);
  EXPECT_NE(tile_colour(1, 4, false), tile_colour(4, 4, false));
  EXPECT_NE(tile_colour(1, 4, false), kTileIdle);
  EXPECT_NE(tile_colour(4, 4, false), kTileSelected);
}

}  // namespace
}  // namespace cudalab::viewer
