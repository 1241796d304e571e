// Reads what `./lab leaderboard` writes for the viewer (leaderboard.json,
// `cudalab.leaderboard/1`; docs/course-staff.md, "A leaderboard") into what
// the leaderboard view draws: per lab and GPU model, each student's score as
// a bar against the anchor (1.0: as fast as the reference the run measured),
// each figure's ranking, and the files the tool refused with their reasons.
// No ImGui here: the view only draws this.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace cudalab::viewer {

struct LeaderboardEntry {
  int rank = 0;
  std::string student;
  std::optional<double> score;  // geometric mean of the ratios; none without common figures
  std::string date, git_revision, file;
};

struct LeaderboardFigureRow {
  int rank = 0;
  std::string student;
  double ratio = 0;  // value / the same run's anchor
  double value = 0;  // in the figure's unit
};

struct LeaderboardFigure {
  std::string name, version, unit, anchor;
  std::vector<std::int64_t> shape;
  std::vector<LeaderboardFigureRow> rows;  // best first
  std::string title() const;               // "attention lab_flash_bf16 4x16x4096x128"
};

struct LeaderboardBoard {
  std::string lab;                        // "06_flash_attention"
  std::string gpu;                        // the model every ranked file ran on
  int score_over = 0;                     // figures the score is the mean over
  std::vector<LeaderboardEntry> overall;  // best first
  std::vector<LeaderboardFigure> figures;
};

struct LeaderboardRejection {
  std::string file, reason;
};

struct Leaderboard {
  std::string source;  // the file it was read from
  std::vector<LeaderboardBoard> boards;
  std::vector<LeaderboardRejection> rejected;
};

// The file, or why it cannot be read, naming the file and the field
// ("board.json: field 'boards[0].overall[1].student' is missing").
std::variant<Leaderboard, std::string> load_leaderboard(const std::string& path);

// One bar of the score chart: `fraction` of the axis, which runs from 0 to
// the larger of 1 (the anchor) and the best score; `anchor_at` is where 1.0
// falls on it.
struct ScoreBar {
  std::string label;  // "1. bob"
  double score = 0;
  double fraction = 0;
  std::string text;  // "1.10x the anchor"
};
struct ScoreChart {
  std::vector<ScoreBar> bars;  // entries without a score are left out
  double anchor_at = 1;
};
ScoreChart score_chart(const LeaderboardBoard& board);

// The same for one figure's ranking (ratios instead of scores).
ScoreChart ratio_chart(const LeaderboardFigure& figure);

}  // namespace cudalab::viewer
