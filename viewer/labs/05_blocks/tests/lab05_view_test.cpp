// Lab 05 in the viewer: the matmul's tile walk built from a trace (by hand,
// then from the lab's code on the emulator) and the activation's warp
// requests. The lab's exercises are graded elsewhere (tests/05_blocks);
// here the walk is checked, with whichever code the build grades.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "../matmul_walk.hpp"
#include "model/lab_source.hpp"

namespace cudalab::viewer {
namespace {

std::unique_ptr<LabSource> lab05_source() {
  for (auto& lab : available_labs())
    if (lab->title() == "05 blocks") return std::move(lab);
  return nullptr;
}

// C (4 x 4) = A (4 x 4) B (4 x 4) in tiles BM x BN x BK = 2 x 4 x 2: two
// programs, program p computing C's row panel p in two K steps. A and B
// have the same size, so only the accesses tell them apart.
constexpr lab05::MatmulShape kTiny{4, 4, 4, 2, 4, 2, 2};
constexpr std::uintptr_t kA = 0x10000, kB = 0x20000, kC = 0x30000;

emu::AccessRecord access(std::uint32_t block, std::uint64_t address, std::uint8_t bytes,
                         bool write) {
  emu::AccessRecord r;
  r.block = block;
  r.address = address;
  r.bytes = bytes;
  r.flags = write ? 2 : 1;
  return r;
}

emu::LaunchRecord tiny_matmul_trace() {
  emu::LaunchRecord launch;
  launch.grid = dim3(2, 1, 1);
  launch.block = dim3(4, 1, 1);
  // B first in memory: the order of the allocations must not matter.
  launch.allocations = {{kB, 32}, {kA, 32}, {kC - 64, 64 + 64 + 64}, {0x40000, 32}};
  for (std::uint32_t p = 0; p < 2; ++p) {
    for (std::uint64_t step = 0; step < 2; ++step) {
      for (std::uint64_t r = 2 * p; r < 2 * p + 2; ++r)
        for (std::uint64_t c = 2 * step; c < 2 * step + 2; ++c)
          launch.accesses.push_back(access(p, kA + (r * 4 + c) * 2, 2, false));
      for (std::uint64_t r = 2 * step; r < 2 * step + 2; ++r)  // one 8-byte load per row
        launch.accesses.push_back(access(p, kB + r * 4 * 2, 8, false));
    }
    for (std::uint64_t r = 2 * p; r < 2 * p + 2; ++r)
      for (std::uint64_t c = 0; c < 4; ++c)
        launch.accesses.push_back(access(p, kC + (r * 4 + c) * 4, 4, true));
  }
  return launch;
}

TEST(Lab05View, FindsAAndBByTheirSizeAndTheTilesTheirAccessesSpan) {
  const auto buffers = lab05::find_matmul_buffers(tiny_matmul_trace(), kC, kTiny);
  ASSERT_TRUE(buffers.has_value());
  EXPECT_EQ(buffers->a, kA);
  EXPECT_EQ(buffers->b, kB);
  EXPECT_EQ(buffers->c, kC);
  EXPECT_FALSE(lab05::find_matmul_buffers(emu::LaunchRecord{}, kC, kTiny).has_value());
}

TEST(Lab05View, AWalkFromATracePlacesEachLoadInItsKStep) {
  const TileWalk walk = lab05::matmul_walk(tiny_matmul_trace(), {kA, kB, kC}, kTiny);
  ASSERT_EQ(walk.grids.size(), 3u);
  EXPECT_EQ(walk.grids[0].rows, 2u);  // A: 4 x 4 in 2 x 2 tiles
  EXPECT_EQ(walk.grids[0].cols, 2u);
  EXPECT_EQ(walk.grids[1].rows, 2u);  // B: 4 x 4 in 2 x 4 tiles
  EXPECT_EQ(walk.grids[1].cols, 1u);
  ASSERT_EQ(walk.programs.size(), 2u);
  const ProgramWalk& p1 = walk.programs[1];
  EXPECT_EQ(p1.name, "program 1: C tile (1, 0)");
  ASSERT_EQ(p1.steps.size(), 2u);
  EXPECT_EQ(p1.steps[0], (std::vector<TileTouch>{{0, 1, 0}, {1, 0, 0}}));
  EXPECT_EQ(p1.steps[1], (std::vector<TileTouch>{{0, 1, 1}, {1, 1, 0}, {2, 1, 0}}));
  // The 8-byte loads of B cover four elements each: B's tiles are whole.
  EXPECT_EQ(p1.elements[0], (std::vector<std::uint64_t>{4, 8}));
  // Minimum (BM*K + K*BN) * 2 = (8 + 16) * 2; this program loaded exactly that.
  EXPECT_EQ(walk.minimum_bytes, 48u);
  EXPECT_EQ(p1.bytes_loaded, 48u);
}

TEST(Lab05View, IsListedWithTheTileWalkTheCoalescingViewAndTiming) {
  const auto lab = lab05_source();
  ASSERT_NE(lab, nullptr);
  EXPECT_TRUE(shows(*lab, View::kTiles));
  EXPECT_TRUE(shows(*lab, View::kCoalescing));
  // The handout's benchmark table comes from a result file: the Timing tab.
  EXPECT_TRUE(shows(*lab, View::kBars));
  EXPECT_FALSE(lab->note(View::kBars).empty());
  EXPECT_FALSE(lab->has_launch_config());
  for (const char* name : {"m", "n", "k", "group_m", "wave", "elements"})
    EXPECT_TRUE(parameter_index(*lab, name).has_value()) << name;
  EXPECT_GE(lab->versions().size(), 3u);
}

// The lab's matmul on the emulator: one program per C tile, one step per K
// tile, and the walk agrees with the tiles the harness says the lab uses.
RunOutcome run_matmul(const LabSource& lab, std::size_t version, std::int64_t m, std::int64_t n,
                      std::int64_t k) {
  RunRequest r = default_request(lab);
  r.version = version;
  r.values[*parameter_index(lab, "m")] = m;
  r.values[*parameter_index(lab, "n")] = n;
  r.values[*parameter_index(lab, "k")] = k;
  r.values[*parameter_index(lab, "group_m")] = 2;
  return lab.run(r);
}

bool grades_the_skeleton(const LabSource& lab) {
  return lab.code_origin().find("your code") != std::string::npos;
}

TEST(Lab05View, TheMatmulOnTheEmulatorWalksOneProgramPerCTileAndOneStepPerKTile) {
  const auto lab = lab05_source();
  ASSERT_NE(lab, nullptr);
  const RunOutcome out = run_matmul(*lab, 0, 200, 300, 80);  // ragged for the lab's tiles
  // The skeleton's matmul loads nothing yet, and its walk says so.
  if (out.unfinished.count(View::kTiles)) GTEST_SKIP() << out.unfinished.at(View::kTiles);
  ASSERT_TRUE(out.tiles.has_value()) << out.error;
  EXPECT_EQ(out.error, "");
  const TileWalk& walk = *out.tiles;
  ASSERT_EQ(walk.grids.size(), 3u);
  const std::uint32_t bm = walk.grids[2].tile_rows, bn = walk.grids[2].tile_cols;
  const std::uint32_t bk = walk.grids[0].tile_cols;
  ASSERT_GT(bm * bn * bk, 0u);
  const std::size_t programs = ((200 + bm - 1) / bm) * ((300 + bn - 1) / bn);
  EXPECT_EQ(walk.programs.size(), programs);
  EXPECT_EQ(step_count(walk), (80 + bk - 1) / bk);
  EXPECT_EQ(walk.minimum_bytes, (std::uint64_t{bm} * 80 + 80 * bn) * 2);
  std::set<std::pair<std::uint32_t, std::uint32_t>> c_tiles;
  for (std::size_t p = 0; p < walk.programs.size(); ++p) {
    const ProgramWalk& program = walk.programs[p];
    ASSERT_EQ(program.steps.size(), step_count(walk)) << program.name;
    for (const TileTouch& t : program.steps.back())
      if (t.grid == 2) c_tiles.insert({t.row, t.col});
    // Every step loads from A and from B.
    for (const auto& step : program.steps) {
      EXPECT_TRUE(std::any_of(step.begin(), step.end(), [](auto t) { return t.grid == 0; }));
      EXPECT_TRUE(std::any_of(step.begin(), step.end(), [](auto t) { return t.grid == 1; }));
    }
    if (!grades_the_skeleton(*lab)) {  // the reference loads each element once
      EXPECT_EQ(program.bytes_loaded, walk.minimum_bytes) << program.name;
    }
  }
  EXPECT_EQ(c_tiles.size(), programs);  // each C tile stored by one program
  // K = 80 in steps of 32: the last step's tile of A is half past the edge.
  const std::size_t last = step_count(walk) - 1;
  const auto& last_step = walk.programs[0].steps[last];
  const auto a_in_last = std::find_if(last_step.begin(), last_step.end(),
                                      [](const TileTouch& t) { return t.grid == 0; });
  ASSERT_NE(a_in_last, last_step.end());
  const TileTouch a_tile = *a_in_last;
  const auto masked = masked_fraction(walk, 0, last, a_tile);
  ASSERT_TRUE(masked.has_value());
  if (!grades_the_skeleton(*lab)) {
    EXPECT_DOUBLE_EQ(*masked, 0.5);
  }
}

TEST(Lab05View, GroupedOrderClustersTheFirstWave) {
  const auto lab = lab05_source();
  ASSERT_NE(lab, nullptr);
  // The first 4 programs row-major take C's first row
  // (1 panel of A, 4 of B); grouped by 2, a 2 x 2 block (2 and 2).
  const RunOutcome row_major = run_matmul(*lab, 0, 256, 512, 32);
  const RunOutcome grouped = run_matmul(*lab, 1, 256, 512, 32);
  if (row_major.unfinished.count(View::kTiles) || grouped.unfinished.count(View::kTiles))
    GTEST_SKIP() << "exercise 4 or 5 is not done yet";
  ASSERT_TRUE(row_major.tiles && grouped.tiles) << row_major.error << grouped.error;
  auto panels = [](TileWalk walk, std::size_t grid) {
    walk.wave = 4;
    const auto counts = touches_at(walk, grid, 0);
    return std::count_if(counts.begin(), counts.end(), [](auto n) { return n > 0; });
  };
  EXPECT_EQ(panels(*row_major.tiles, 0), 1);
  EXPECT_EQ(panels(*row_major.tiles, 1), 4);
  EXPECT_EQ(panels(*grouped.tiles, 0), 2);
  EXPECT_EQ(panels(*grouped.tiles, 1), 2);
}

// The fused activation is compared with the unfused one, and the unfused
// with the fused, never with itself.
TEST(Lab05View, FusedAndUnfusedAreComparedWithEachOther) {
  const auto lab = lab05_source();
  ASSERT_NE(lab, nullptr);
  EXPECT_EQ(lab->default_comparison(2), 3u);
  EXPECT_EQ(lab->default_comparison(3), 2u);
  EXPECT_EQ(views_filled(*lab, 0), std::vector<View>{View::kTiles});
  EXPECT_EQ(views_filled(*lab, 2), std::vector<View>{View::kCoalescing});
}

// Issue 35: on the skeleton the viewer opened on an empty tile walk and the
// fused activation looked like the unfused one. Now the walk shows where
// each program stored its tile of C and says exercise 4 is not done yet;
// the fused activation says exercise 1 is not done yet.
TEST(Lab05View, TheSkeletonSaysWhichExerciseIsNotDoneYet) {
  const auto lab = lab05_source();
  ASSERT_NE(lab, nullptr);
  const RunOutcome matmul = run_matmul(*lab, 0, 300, 440, 80);
  RunRequest r = default_request(*lab);
  r.version = 2;
  const RunOutcome fused = lab->run(r);
  if (!grades_the_skeleton(*lab)) {  // the reference has nothing left to do
    EXPECT_TRUE(matmul.unfinished.empty());
    EXPECT_TRUE(fused.unfinished.empty());
    return;
  }
  ASSERT_TRUE(matmul.unfinished.count(View::kTiles)) << matmul.error;
  EXPECT_EQ(matmul.unfinished.at(View::kTiles).rfind("exercise 4 is not done yet: ", 0), 0u)
      << matmul.unfinished.at(View::kTiles);
  EXPECT_NE(matmul.unfinished.at(View::kTiles).find("`./lab run 05`"), std::string::npos);
  ASSERT_TRUE(matmul.tiles.has_value());
  EXPECT_EQ(matmul.tiles->programs.size(), 3u * 7u);   // 300 x 440 in 128 x 64 tiles
  EXPECT_TRUE(shows_something(matmul, View::kTiles));  // the stores of C
  ASSERT_TRUE(fused.unfinished.count(View::kCoalescing)) << fused.error;
  EXPECT_EQ(fused.unfinished.at(View::kCoalescing).rfind("exercise 1 is not done yet: ", 0), 0u);
}

TEST(Lab05View, TheUnfusedActivationMakesTwiceTheWarpRequestsOfTheFusedOne) {
  const auto lab = lab05_source();
  ASSERT_NE(lab, nullptr);
  RunRequest r = default_request(*lab);
  r.values[*parameter_index(*lab, "elements")] = 1000;
  r.version = 2;
  const RunOutcome fused = lab->run(r);
  r.version = 3;
  const RunOutcome unfused = lab->run(r);
  // The skeleton's fused program touches nothing yet, and the view says so.
  if (fused.unfinished.count(View::kCoalescing))
    GTEST_SKIP() << fused.unfinished.at(View::kCoalescing);
  ASSERT_TRUE(fused.run && unfused.run) << fused.error << unfused.error;
  EXPECT_EQ(fused.error, "");
  // Requests of loads and of stores: one trip through memory, or two.
  auto requests = [](const KernelRun& run, bool writes) {
    return std::count_if(run.requests.begin(), run.requests.end(), [&](const WarpRequest& q) {
      return run.sites[q.site].is_write == writes;
    });
  };
  EXPECT_GT(requests(*fused.run, false), 0);
  EXPECT_EQ(requests(*unfused.run, false), 2 * requests(*fused.run, false));
  EXPECT_EQ(requests(*unfused.run, true), 2 * requests(*fused.run, true));
  EXPECT_EQ(fused.run->elements(), 1000u);
}

}  // namespace
}  // namespace cudalab::viewer
