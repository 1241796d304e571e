#include "model/indexing_model.hpp"

#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "known_runs.hpp"

namespace cudalab::viewer {
namespace {

using testing::column_major;
using testing::row_major;

KernelRun fixed(std::uint64_t x, std::uint64_t y, std::uint32_t block) {
  return column_major(x, y, block);
}

// Block b starts at element b * block / 2: neighbouring blocks overlap by
// half a block, and the last half block's worth of elements is never reached.
KernelRun half_overlapping(std::uint32_t blocks, std::uint32_t block, std::uint64_t x,
                           std::uint64_t y) {
  return testing::run_of(blocks, block, x, y, [=](std::uint64_t i) -> std::optional<Cell> {
    const std::uint64_t element = i / block * (block / 2) + i % block;
    if (element >= x * y) return std::nullopt;
    return Cell{element / y, element % y};
  });
}

TEST(IndexingModel, FixedKernelWritesEveryElementOnce) {
  const KernelRun run = fixed(37, 53, 128);  // primes: the last block is partial
  const CoverageStats s = coverage_stats(run);
  EXPECT_EQ(s.once, 37u * 53u);
  EXPECT_EQ(s.never, 0u);
  EXPECT_EQ(s.several, 0u);
}

TEST(IndexingModel, OverlappingBlocksMissSomeElementsAndDoubleOthers) {
  const KernelRun run = half_overlapping(16, 64, 31, 33);
  const CoverageStats s = coverage_stats(run);
  EXPECT_GT(s.never, 0u);
  EXPECT_GT(s.several, 0u);
  EXPECT_EQ(s.never + s.once + s.several, run.elements());
}

TEST(IndexingModel, AnomaliesGetTheirOwnColours) {
  KernelRun run = fixed(4, 4, 32);
  run.writes[3].count = 0;
  run.writes[5].count = 2;
  EXPECT_EQ(cell_colour(run, 3, ColourBy::kBlock, {}), never_written());
  EXPECT_EQ(cell_colour(run, 5, ColourBy::kWarp, {}), written_twice());
  EXPECT_NE(cell_colour(run, 0, ColourBy::kBlock, {}), never_written());
}

TEST(IndexingModel, DistinctBlockColoursEqualBlocks) {
  for (std::uint32_t block : {64u, 96u, 128u}) {  // at most 48 blocks: one colour each
    const KernelRun run = fixed(40, 50, block);
    EXPECT_EQ(distinct_block_colours(run), run.blocks()) << "block " << block;
  }
}

TEST(IndexingModel, PaletteColoursAreDistinctAndNotAnomalies) {
  std::set<std::tuple<int, int, int>> seen;
  for (int i = 0; i < kCategoricalColours; ++i) {
    const Rgba c = categorical(i);
    EXPECT_TRUE(seen.insert({c.r, c.g, c.b}).second) << "colour " << i << " repeats";
    EXPECT_NE(c, never_written());
    EXPECT_NE(c, written_twice());
  }
  EXPECT_EQ(categorical(kCategoricalColours), categorical(0));
}

TEST(IndexingModel, SelectionDimsOtherBlocks) {
  // Row-major mapping, 8 blocks of 64 threads: block b writes row b.
  const KernelRun run = row_major(8, 64, 64);
  Selection sel;
  sel.block = 2;
  EXPECT_EQ(cell_colour(run, 2 * 64, ColourBy::kBlock, sel), categorical(2));
  EXPECT_EQ(cell_colour(run, 3 * 64, ColourBy::kBlock, sel), dimmed(categorical(3)));
  sel.warp = 1;  // block 2, warp 1: elements 32..63 of row 2
  EXPECT_EQ(cell_colour(run, 2 * 64 + 40, ColourBy::kBlock, sel), categorical(2));
  EXPECT_EQ(cell_colour(run, 2 * 64 + 10, ColourBy::kBlock, sel), dimmed(categorical(2)));
}

TEST(IndexingModel, PyramidKeepsASingleAnomalyAtEveryLevel) {
  KernelRun run = fixed(1000, 1000, 256);  // 1M elements
  run.writes[123456].count = 2;
  const CoveragePyramid pyramid(run);
  ASSERT_EQ(pyramid.rows(pyramid.levels() - 1), 1u);
  const std::uint64_t row = 123456 / 1000, col = 123456 % 1000;
  for (int level = 0; level < pyramid.levels(); ++level) {
    EXPECT_TRUE(pyramid.flags(level, row >> level, col >> level) & CoveragePyramid::kSeveral)
        << "level " << level;
    EXPECT_EQ(tile_colour(run, pyramid, level, row >> level, col >> level, ColourBy::kBlock, {}),
              written_twice());
  }
  EXPECT_FALSE(pyramid.flags(1, 0, 0));
}

TEST(IndexingModel, ZoomedOutViewsDrawFewTiles) {
  const KernelRun run = fixed(1024, 1024, 256);
  const CoveragePyramid pyramid(run);
  const GridView view = fit_view(run.rows, run.cols, 800, 600);
  const int level = level_for_zoom(view.pixels_per_element);
  EXPECT_GE(view.pixels_per_element * (1 << level), 3.0);
  const TileRange r = visible_tiles(view, pyramid, level, 800, 600);
  EXPECT_LE((r.row_end - r.row_begin) * (r.col_end - r.col_begin), 200u * 200u);
  EXPECT_EQ(r.row_end, pyramid.rows(level));  // the whole tensor is visible
}

TEST(IndexingModel, ZoomKeepsThePointUnderTheMouse) {
  const KernelRun run = fixed(100, 100, 128);
  GridView view = fit_view(run.rows, run.cols, 500, 500);
  const auto before = element_at(run, view, 123, 321);
  zoom_at(view, 3.0, 123, 321);
  EXPECT_EQ(element_at(run, view, 123, 321), before);
  EXPECT_FALSE(element_at(run, view, -5000, 10).has_value());
}

TEST(IndexingModel, DescribesWhoWroteAnElement) {
  // Blocks of 4 overlapping by half: block 0 thread 2 and block 1 thread 0 write element 2.
  const KernelRun run = half_overlapping(4, 4, 2, 8);
  const std::string text = describe_element(run, 2);
  EXPECT_NE(text.find("written 2 times"), std::string::npos) << text;
  EXPECT_NE(text.find("blockIdx (0,0,0) threadIdx (2,0,0)"), std::string::npos) << text;
  EXPECT_NE(text.find("blockIdx (1,0,0) threadIdx (0,0,0)"), std::string::npos) << text;
}

}  // namespace
}  // namespace cudalab::viewer
