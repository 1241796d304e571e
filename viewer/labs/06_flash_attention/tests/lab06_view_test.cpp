// Lab 06 in the viewer: the running m and l of one row, the walk of the
// fused forward built from a trace (by hand, then from the lab's code on the
// emulator) and the bytes chart. The lab's exercises are graded elsewhere
// (tests/06_flash_attention); here the views are checked, with whichever
// code the build grades.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "../attention_walk.hpp"
#include "../row_statistics.hpp"
#include "harness/06_flash_attention/backend.hpp"
#include "model/lab_source.hpp"

namespace cudalab::viewer {
namespace {

std::unique_ptr<LabSource> lab06_source() {
  for (auto& lab : available_labs())
    if (lab->title() == "06 flash attention") return std::move(lab);
  return nullptr;
}

// ---- the running statistics ---------------------------------------------------------------

// d = 1, q = 1, scale 1: the scores are the keys themselves.
const std::vector<float> kKeys = {0, 2, 1, 3};
const float kQueryOne[] = {1.0f};

TEST(Lab06View, RunningStatisticsRescaleTheSumWhenTheMaxRises) {
  const auto stats = lab06::running_statistics(kQueryOne, kKeys, 4, 1, 1.0f, 2, false, 0);
  ASSERT_EQ(stats.size(), 2u);  // tiles {0, 2} and {1, 3}
  EXPECT_DOUBLE_EQ(stats[0].max, 2.0);
  EXPECT_NEAR(stats[0].sum, std::exp(-2.0) + 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(stats[1].max, 3.0);
  // The first tile's terms, exp(s - 2), become exp(s - 3).
  EXPECT_NEAR(stats[1].sum, std::exp(-3.0) + std::exp(-1.0) + std::exp(-2.0) + 1.0, 1e-12);
}

TEST(Lab06View, CausalStatisticsStopAtTheRowsLastKey) {
  // Query 2 sees keys 0..2: tiles {0, 2} and {1}; key 3 is masked.
  const auto stats = lab06::running_statistics(kQueryOne, kKeys, 4, 1, 1.0f, 2, true, 2);
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_DOUBLE_EQ(stats[1].max, 2.0);
  EXPECT_NEAR(stats[1].sum, std::exp(-2.0) + 1.0 + std::exp(-1.0), 1e-12);
  EXPECT_EQ(lab06::running_statistics(kQueryOne, kKeys, 4, 1, 1.0f, 2, true, 0).size(), 1u);
  EXPECT_THROW(lab06::running_statistics(kQueryOne, kKeys, 4, 1, 1.0f, 2, true, 4),
               std::invalid_argument);
}

TEST(Lab06View, TheLastStatisticsAreTheTwoPassSoftmaxs) {
  constexpr int n = 37, d = 8;
  std::mt19937 random(3);
  std::uniform_real_distribution<float> uniform(-3, 3);
  std::vector<float> q(d), k(std::size_t(n) * d);
  for (float& x : q) x = uniform(random);
  for (float& x : k) x = uniform(random);
  std::vector<double> scores;
  for (int j = 0; j < n; ++j) {
    double dot = 0;
    for (int c = 0; c < d; ++c) dot += double(q[c]) * k[std::size_t(j) * d + c];
    scores.push_back(0.5 * dot);
  }
  const double max = *std::max_element(scores.begin(), scores.end());
  double sum = 0;
  for (const double s : scores) sum += std::exp(s - max);
  for (const int tile : {1, 5, 32, 64}) {
    const auto stats = lab06::running_statistics(q.data(), k, n, d, 0.5f, tile, false, 10);
    ASSERT_EQ(stats.size(), std::size_t((n + tile - 1) / tile));
    for (std::size_t t = 1; t < stats.size(); ++t) EXPECT_GE(stats[t].max, stats[t - 1].max);
    EXPECT_DOUBLE_EQ(stats.back().max, max);
    EXPECT_NEAR(stats.back().sum, sum, 1e-9 * sum) << "tile " << tile;
  }
}

TEST(Lab06View, StepBarsScaleByTheLargestMagnitude) {
  const StepSeries series{"m", {-INFINITY, 1.0, -2.0}};
  EXPECT_EQ(step_bar_fraction(series, 0), 0.0);
  EXPECT_DOUBLE_EQ(step_bar_fraction(series, 1), 0.5);
  EXPECT_DOUBLE_EQ(step_bar_fraction(series, 2), -1.0);
  EXPECT_EQ(step_bar_fraction(series, 3), 0.0);
}

TEST(Lab06View, ANamedBarChartNamesItsPartsAndReachesEachBarsFormula) {
  TrafficBar naive{"naive", 0, {{0, 3000}, {1, 1000}}, 8000.0, "formula"};
  TrafficBar fused{"fused", 0, {{0, 500}, {1, 100}}, 600.0, "formula"};
  const TrafficChart chart =
      named_bar_chart("bytes", {"loads", "stores"}, "traced:", {naive, fused});
  ASSERT_EQ(chart.bars.size(), 2u);
  EXPECT_EQ(chart.bars[0].bytes, 4000u);
  EXPECT_EQ(chart.max_value, 8000.0);  // the naive formula, past its bar
  EXPECT_EQ(part_name(chart, 1), "stores");
  EXPECT_EQ(bar_text(chart, chart.bars[1]),
            "600 B  1.00 of its formula  (loads: 500 B, stores: 100 B)");
}

// ---- the walk from a hand-made trace ---------------------------------------------------------

// n = 4, d = 2, Br = 2, Bc = 1: two programs; program p reads its two rows
// of q, then every key's row of k and of v, and writes its two rows of o.
constexpr lab06::AttentionShape kTiny{4, 2, 2, 1};
constexpr std::uintptr_t kQ = 0x20000, kK = 0x30000, kV = 0x10000, kOut = 0x40000;

emu::AccessRecord access(std::uint32_t block, std::uint64_t address, bool write) {
  emu::AccessRecord r;
  r.block = block;
  r.address = address;
  r.bytes = 4;
  r.flags = write ? 2 : 1;
  return r;
}

emu::LaunchRecord tiny_trace(bool causal) {
  emu::LaunchRecord launch;
  launch.grid = dim3(2, 1, 1);
  launch.block = dim3(4, 1, 1);
  // V first in memory: the order of the allocations must not matter.
  launch.allocations = {{kV, 32}, {kQ, 32}, {kK, 32}, {kOut, 48}};
  for (std::uint32_t p = 0; p < 2; ++p) {
    for (std::uint64_t e = 4 * p; e < 4 * p + 4; ++e)
      launch.accesses.push_back(access(p, kQ + 4 * e, false));
    const std::uint64_t keys = causal ? 2 * p + 2 : 4;
    for (std::uint64_t key = 0; key < keys; ++key)
      for (std::uint64_t c = 0; c < 2; ++c) {
        launch.accesses.push_back(access(p, kK + 4 * (key * 2 + c), false));
        launch.accesses.push_back(access(p, kV + 4 * (key * 2 + c), false));
      }
    for (std::uint64_t e = 4 * p; e < 4 * p + 4; ++e)
      launch.accesses.push_back(access(p, kOut + 4 * e, true));
  }
  return launch;
}

TEST(Lab06View, FindsQKAndVByWhatEachProgramReads) {
  const auto buffers = lab06::find_attention_buffers(tiny_trace(false), kOut, kTiny);
  ASSERT_TRUE(buffers.has_value());
  EXPECT_EQ(buffers->q, kQ);
  EXPECT_EQ(buffers->k, kK);
  EXPECT_EQ(buffers->v, kV);
  EXPECT_FALSE(lab06::find_attention_buffers(emu::LaunchRecord{}, kOut, kTiny).has_value());
}

TEST(Lab06View, AWalkFromATraceVisitsTheKeyTilesInOrder) {
  const TileWalk walk = lab06::attention_walk(tiny_trace(false), {kQ, kK, kV, kOut}, kTiny);
  ASSERT_EQ(walk.grids.size(), 5u);
  EXPECT_EQ(walk.grids[lab06::kS].rows, 2u);
  EXPECT_EQ(walk.grids[lab06::kS].cols, 4u);
  ASSERT_EQ(walk.programs.size(), 2u);
  const ProgramWalk& p1 = walk.programs[1];
  EXPECT_EQ(p1.name, "program 1: queries [2, 4)");
  ASSERT_EQ(p1.steps.size(), 4u);  // in order of first touch: S with its key's K row
  EXPECT_EQ(
      p1.steps[0],
      (std::vector<TileTouch>{
          {lab06::kQ, 1, 0}, {lab06::kKTransposed, 0, 0}, {lab06::kS, 1, 0}, {lab06::kV, 0, 0}}));
  EXPECT_EQ(
      p1.steps[3],
      (std::vector<TileTouch>{
          {lab06::kKTransposed, 0, 3}, {lab06::kS, 1, 3}, {lab06::kV, 3, 0}, {lab06::kO, 1, 0}}));
  EXPECT_EQ(p1.bytes_loaded, (4u + 2 * 4 * 2) * 4);
}

TEST(Lab06View, ACausalWalkShowsOnlyTheTilesLoaded) {
  const TileWalk walk = lab06::attention_walk(tiny_trace(true), {kQ, kK, kV, kOut}, kTiny);
  EXPECT_EQ(walk.programs[0].steps.size(), 2u);
  EXPECT_EQ(walk.programs[1].steps.size(), 4u);
  EXPECT_FALSE(first_program_touching(walk, lab06::kS, 0, 2).has_value());  // above the diagonal
  EXPECT_EQ(first_program_touching(walk, lab06::kS, 1, 3), 1u);
}

// ---- the lab's code on the emulator
// ---------------------------------------------------------------

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

void expect_walk(const TileWalk& walk, std::size_t n, const ::lab06::harness::FlashTile& tile,
                 bool causal) {
  ASSERT_EQ(walk.programs.size(), ceil_div(n, tile.query_rows));
  for (std::size_t b = 0; b < walk.programs.size(); ++b) {
    const ProgramWalk& p = walk.programs[b];
    const std::size_t keys = causal ? std::min(n, (b + 1) * tile.query_rows) : n;
    const std::size_t tiles = ceil_div(keys, tile.key_rows);
    ASSERT_EQ(p.steps.size(), tiles) << p.name;
    for (std::size_t j = 0; j < tiles; ++j) {
      const TileTouch s{lab06::kS, static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(j)};
      EXPECT_TRUE(touches(walk, b, j, s)) << p.name << ", key tile " << j;
    }
    // Q, K, V and O: 4 d floats per key, the block's queries in q and o.
    const std::size_t queries = std::min(n, (b + 1) * tile.query_rows) - b * tile.query_rows;
    EXPECT_EQ(p.bytes_loaded, (queries + 2 * keys) * 64 * 4) << p.name;
  }
}

TEST(Lab06View, TheFusedForwardOnTheEmulatorVisitsEveryKeyTile) {
  auto lab = lab06_source();
  ASSERT_NE(lab, nullptr);
  RunRequest request = default_request(*lab);
  request.values = {200, 64, 100};
  const RunOutcome out = lab->run(request);
  // The skeleton's forward loads no key tile yet, and its tile walk says so.
  if (out.unfinished.count(View::kTiles)) GTEST_SKIP() << out.unfinished.at(View::kTiles);
  ASSERT_TRUE(out.tiles.has_value()) << out.error;
  EXPECT_TRUE(out.error.empty()) << out.error;
  const auto tile =
      ::lab06::harness::make_emulator_backend()->call(::lab06::harness::entry::flash_tile, 64);
  expect_walk(*out.tiles, 200, tile, false);
  ASSERT_EQ(out.tiles->step_series.size(), 2u);
  EXPECT_EQ(out.tiles->step_series[0].values.size(), ceil_div(200, tile.key_rows));
  ASSERT_TRUE(out.traffic.has_value());
  ASSERT_EQ(out.traffic->bars.size(), 2u);
  // The fused kernel moves what its formula says; the naive one stores the
  // scores twice and o once (exercise 1's trace check).
  EXPECT_DOUBLE_EQ(double(out.traffic->bars[1].bytes), *out.traffic->bars[1].ideal);
  EXPECT_EQ(out.traffic->bars[0].parts.at(1).bytes, 4u * (2 * 200 * 200 + 200 * 64));
}

TEST(Lab06View, TheCausalForwardOnTheEmulatorSkipsTheTilesAboveTheDiagonal) {
  auto lab = lab06_source();
  ASSERT_NE(lab, nullptr);
  RunRequest request = default_request(*lab);
  request.version = 1;
  request.values = {200, 64, 150};
  const RunOutcome out = lab->run(request);
  // The skeleton's forward loads no key tile yet, and its tile walk says so.
  if (out.unfinished.count(View::kTiles)) GTEST_SKIP() << out.unfinished.at(View::kTiles);
  ASSERT_TRUE(out.tiles.has_value()) << out.error;
  EXPECT_TRUE(out.error.empty()) << out.error;
  const auto tile =
      ::lab06::harness::make_emulator_backend()->call(::lab06::harness::entry::flash_tile, 64);
  expect_walk(*out.tiles, 200, tile, true);
  EXPECT_EQ(out.tiles->step_series[0].values.size(), ceil_div(151, tile.key_rows));
}

TEST(Lab06View, RefusesAHeadDimensionTheKernelsDoNotTake) {
  auto lab = lab06_source();
  ASSERT_NE(lab, nullptr);
  RunRequest request = default_request(*lab);
  request.values = {200, 48, 100};
  const RunOutcome out = lab->run(request);
  EXPECT_FALSE(out.has_data());
  EXPECT_NE(out.error.find("d = 48"), std::string::npos) << out.error;
}

}  // namespace
}  // namespace cudalab::viewer
