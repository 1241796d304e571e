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
      ProgramWalk p;
      p.name = "program";
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

// A 5 x 3 matrix in 4 x 2 tiles: tiles (0, 1), (1, 0) and (1, 1) are ragged.
TileGrid ragged_grid() { return {"A", 2, 2, 5, 3, 4, 2}; }

TEST(TileWalkModel, EdgeTilesAreTheirPartInsideTheMatrix) {
  const TileGrid g = ragged_grid();
  EXPECT_DOUBLE_EQ(inside_fraction(g, 0, 0).cols, 1.0);
  EXPECT_DOUBLE_EQ(inside_fraction(g, 0, 0).rows, 1.0);
  EXPECT_DOUBLE_EQ(inside_fraction(g, 0, 1).cols, 0.5);            // column 2 of columns 2, 3
  EXPECT_DOUBLE_EQ(inside_fraction(g, 1, 0).rows, 0.25);           // row 4 of rows 4 .. 7
  EXPECT_DOUBLE_EQ(inside_fraction({"C", 2, 2}, 1, 1).cols, 1.0);  // no shape known: whole
}

TEST(TileWalkModel, AProgramWalkFromPlacedAccessesCountsElementsAndBytes) {
  const std::vector<TileGrid> grids = {ragged_grid(), {"C", 1, 1, 2, 2, 2, 2}};
  std::vector<ElementAccess> accesses;
  // Step 0: the whole of tile (0, 0) of A, element (1, 1) twice.
  for (std::uint64_t r = 0; r < 4; ++r)
    for (std::uint64_t c = 0; c < 2; ++c) accesses.push_back({0, r, c, 0, 2, true});
  accesses.push_back({0, 1, 1, 0, 2, true});
  // Step 1: the only element of ragged tile (1, 1) and the store of C.
  accesses.push_back({0, 4, 2, 1, 2, true});
  for (std::uint64_t r = 0; r < 2; ++r)
    for (std::uint64_t c = 0; c < 2; ++c) accesses.push_back({1, r, c, 1, 4, false});
  TileWalk walk;
  walk.grids = grids;
  walk.programs.push_back(program_walk("program 0", grids, accesses));
  walk.minimum_bytes = 16;
  const ProgramWalk& p = walk.programs[0];
  ASSERT_EQ(p.steps.size(), 2u);
  EXPECT_EQ(p.steps[0], (std::vector<TileTouch>{{0, 0, 0}}));
  EXPECT_EQ(p.steps[1], (std::vector<TileTouch>{{0, 1, 1}, {1, 0, 0}}));
  EXPECT_EQ(p.elements[0], (std::vector<std::uint64_t>{8}));  // distinct, not accesses
  EXPECT_EQ(p.elements[1], (std::vector<std::uint64_t>{1, 4}));
  EXPECT_EQ(p.bytes_loaded, 10u * 2);  // loads only, the repeat too
  EXPECT_DOUBLE_EQ(bytes_over_minimum(walk, 0), 20.0 / 16.0);
  EXPECT_DOUBLE_EQ(*masked_fraction(walk, 0, 0, {0, 0, 0}), 0.0);
  EXPECT_DOUBLE_EQ(*masked_fraction(walk, 0, 1, {0, 1, 1}), 7.0 / 8.0);  // 1 of 8 loaded
  EXPECT_FALSE(masked_fraction(walk, 0, 0, {0, 1, 1}).has_value());      // not at step 0
  EXPECT_EQ(first_program_touching(walk, 1, 0, 0), std::optional<std::size_t>(0));
  EXPECT_FALSE(first_program_touching(walk, 0, 1, 0).has_value());
}

TEST(TileWalkModel, TheReuseShadingCountsOnlyTheFirstWave) {
  TileWalk walk = matmul_2x2();
  walk.wave = 2;  // programs (0, 0) and (0, 1): A row 0 twice, B columns once each
  EXPECT_EQ(touches_at(walk, kA, 0), (std::vector<std::uint32_t>{2, 0, 0, 0}));
  EXPECT_EQ(touches_at(walk, kB, 0), (std::vector<std::uint32_t>{1, 1, 0, 0}));
  walk.wave = 9;  // more than there are: all
  EXPECT_EQ(touches_at(walk, kA, 0), (std::vector<std::uint32_t>{2, 0, 2, 0}));
}

TEST(TileWalkModel, StepsHaveTheirOwnColours) {
  EXPECT_NE(step_colour(0, 3), step_colour(2, 3));
  EXPECT_NE(kTileHatch, kTileIdle);
}

}  // namespace
}  // namespace cudalab::viewer
