// The leaderboard view's model: it reads what tools/leaderboard.py writes
// (tests/data/leaderboard-lab06.json: lab 06's H100 result as alice, the
// same run 1.5x faster as bob, a truncated file as carol), and refuses other
// files naming the field.
#include "model/leaderboard_model.hpp"

#include "model/ui_state.hpp"
#include "test_files.hpp"

#include <gtest/gtest.h>

namespace cudalab::viewer {
namespace {

const std::string kBoard = std::string(CUDALAB_VIEWER_TEST_DATA) + "/leaderboard-lab06.json";

TEST(LeaderboardModel, ReadsTheToolsBoard) {
  auto loaded = load_leaderboard(kBoard);
  ASSERT_TRUE(std::holds_alternative<Leaderboard>(loaded)) << std::get<std::string>(loaded);
  const Leaderboard& board = std::get<Leaderboard>(loaded);
  ASSERT_EQ(board.boards.size(), 1u);
  const LeaderboardBoard& lab06 = board.boards[0];
  EXPECT_EQ(lab06.lab, "06_flash_attention");
  EXPECT_EQ(lab06.gpu, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(lab06.score_over, 8);
  ASSERT_EQ(lab06.overall.size(), 2u);
  EXPECT_EQ(lab06.overall[0].student, "bob");
  EXPECT_EQ(lab06.overall[1].student, "alice");
  ASSERT_TRUE(lab06.overall[0].score && lab06.overall[1].score);
  EXPECT_NEAR(*lab06.overall[0].score / *lab06.overall[1].score, 1.5, 1e-9);
  ASSERT_EQ(lab06.figures.size(), 8u);
  EXPECT_EQ(lab06.figures[0].title(), "attention lab_flash_backward_fp32 4x16x4096x128");
  EXPECT_EQ(lab06.figures[0].rows[0].student, "bob");
  ASSERT_EQ(board.rejected.size(), 1u);
  EXPECT_EQ(board.rejected[0].file, "results/carol-lab06-4244.json");
  EXPECT_NE(board.rejected[0].reason.find("is not JSON"), std::string::npos);
}

TEST(LeaderboardModel, ScoresAreBarsAgainstTheAnchor) {
  const auto loaded = load_leaderboard(kBoard);
  ASSERT_TRUE(std::holds_alternative<Leaderboard>(loaded));
  const LeaderboardBoard& lab06 = std::get<Leaderboard>(loaded).boards[0];
  const ScoreChart chart = score_chart(lab06);
  ASSERT_EQ(chart.bars.size(), 2u);
  EXPECT_EQ(chart.bars[0].label, "1. bob");
  // Both below the anchor: the axis ends at 1.0, the anchor's line.
  EXPECT_DOUBLE_EQ(chart.anchor_at, 1.0);
  EXPECT_DOUBLE_EQ(chart.bars[0].fraction, *lab06.overall[0].score);
  EXPECT_EQ(chart.bars[1].text, "0.37x the anchor");

  // A figure where bob beats the anchor: the axis ends at his ratio.
  LeaderboardFigure fast = lab06.figures[0];
  fast.rows[0].ratio = 2.0;
  const ScoreChart ratios = ratio_chart(fast);
  EXPECT_DOUBLE_EQ(ratios.anchor_at, 0.5);
  EXPECT_DOUBLE_EQ(ratios.bars[0].fraction, 1.0);
}

TEST(LeaderboardModel, RefusesOtherFilesNamingTheProblem) {
  auto message = [](const std::string& path) {
    auto loaded = load_leaderboard(path);
    return std::holds_alternative<std::string>(loaded) ? std::get<std::string>(loaded) : "";
  };
  EXPECT_NE(message("/nonexistent/board.json").find("cannot be opened"), std::string::npos);
  const std::string text = file_text(kBoard);
  EXPECT_NE(
      message(temp_file("lb_truncated.json", text.substr(0, text.size() / 2))).find("not JSON"),
      std::string::npos);
  const std::string result_file = std::string(CUDALAB_VIEWER_TEST_DATA) + "/bench_sample.json";
  EXPECT_NE(message(result_file).find("is no leaderboard"), std::string::npos)
      << message(result_file);
  std::string missing = text;
  const auto at = missing.find("\"student\": \"alice\"");
  ASSERT_NE(at, std::string::npos);
  missing.replace(at, 18, "\"name\": \"alice\"");
  EXPECT_NE(message(temp_file("lb_missing.json", missing))
                .find("field 'boards[0].overall[1].student' is missing"),
            std::string::npos)
      << message(temp_file("lb_missing.json", missing));
}

// The tab appears once a board is loaded (or failed to load: it says why),
// between the lab's views and help, and --panel knows its name.
TEST(LeaderboardModel, TheTabShowsOnceLoaded) {
  UiState state;
  EXPECT_EQ(shown_panels(state), (std::vector<Panel>{Panel::kBars, Panel::kHelp}));
  load_leaderboard(state, kBoard);
  ASSERT_TRUE(state.leaderboard.board);
  EXPECT_EQ(shown_panels(state),
            (std::vector<Panel>{Panel::kBars, Panel::kLeaderboard, Panel::kHelp}));
  EXPECT_EQ(panel_from_name("leaderboard"), Panel::kLeaderboard);
  EXPECT_EQ(unfinished_text(state, Panel::kLeaderboard), "");

  UiState failed;
  load_leaderboard(failed, "/nonexistent/leaderboard.json");
  EXPECT_FALSE(failed.leaderboard.board);
  EXPECT_NE(failed.leaderboard.error.find("cannot be opened"), std::string::npos);
  EXPECT_TRUE(shown(failed, Panel::kLeaderboard));
}

}  // namespace
}  // namespace cudalab::viewer
