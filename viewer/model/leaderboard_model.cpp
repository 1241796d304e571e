#include "leaderboard_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace cudalab::viewer {
namespace {

using nlohmann::json;

// Reading with the field's path for the message.
struct Field {
  const json& value;
  std::string path;

  Field at(const std::string& key) const {
    if (!value.is_object() || !value.contains(key) || value.at(key).is_null())
      throw std::runtime_error("field '" + join(key) + "' is missing");
    return {value.at(key), join(key)};
  }
  Field at(std::size_t i) const { return {value.at(i), path + "[" + std::to_string(i) + "]"}; }
  std::string join(const std::string& key) const { return path.empty() ? key : path + "." + key; }
  void expect(bool ok, const char* what) const {
    if (!ok) throw std::runtime_error("field '" + path + "' is not " + what);
  }
  std::string text() const {
    expect(value.is_string(), "a string");
    return value.get<std::string>();
  }
  double number() const {
    expect(value.is_number(), "a number");
    const double d = value.get<double>();
    expect(std::isfinite(d), "finite");
    return d;
  }
  int integer() const {
    expect(value.is_number_integer(), "an integer");
    return value.get<int>();
  }
  std::size_t size() const {
    expect(value.is_array(), "an array");
    return value.size();
  }
};

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string out;
  for (const auto d : shape) out += (out.empty() ? "" : "x") + std::to_string(d);
  return out;
}

std::string times_text(double x) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.2fx the anchor", x);
  return buffer;
}

ScoreChart chart(const std::vector<std::pair<std::string, double>>& values) {
  ScoreChart c;
  double top = 1;
  for (const auto& [label, v] : values) top = std::max(top, v);
  c.anchor_at = 1 / top;
  for (const auto& [label, v] : values) c.bars.push_back({label, v, v / top, times_text(v)});
  return c;
}

}  // namespace

std::string LeaderboardFigure::title() const {
  return name + " " + version + " " + shape_text(shape);
}

std::variant<Leaderboard, std::string> load_leaderboard(const std::string& path) {
  std::ifstream in(path);
  if (!in) return path + ": cannot be opened";
  json data;
  try {
    data = json::parse(in);
  } catch (const json::exception& e) {
    return path + ": not JSON (" + e.what() + ")";
  }
  Leaderboard board;
  board.source = path;
  try {
    const Field root{data, ""};
    if (root.at("schema").text() != "cudalab.leaderboard/1")
      throw std::runtime_error("is no leaderboard (schema '" + root.at("schema").text() +
                               "', not 'cudalab.leaderboard/1'; ./lab leaderboard writes it)");
    const Field boards = root.at("boards");
    for (std::size_t b = 0; b < boards.size(); ++b) {
      const Field f = boards.at(b);
      LeaderboardBoard out;
      out.lab = f.at("lab").text();
      out.gpu = f.at("gpu").text();
      out.score_over = f.at("score_over").integer();
      const Field overall = f.at("overall");
      for (std::size_t i = 0; i < overall.size(); ++i) {
        const Field e = overall.at(i);
        LeaderboardEntry entry;
        entry.rank = e.at("rank").integer();
        entry.student = e.at("student").text();
        if (e.value.contains("score") && !e.value.at("score").is_null())
          entry.score = e.at("score").number();
        entry.date = e.at("date").text();
        entry.git_revision = e.at("git_revision").text();
        entry.file = e.at("file").text();
        out.overall.push_back(std::move(entry));
      }
      const Field figures = f.at("figures");
      for (std::size_t i = 0; i < figures.size(); ++i) {
        const Field g = figures.at(i);
        LeaderboardFigure figure;
        figure.name = g.at("name").text();
        figure.version = g.at("version").text();
        figure.unit = g.at("unit").text();
        figure.anchor = g.at("anchor").text();
        const Field shape = g.at("shape");
        for (std::size_t k = 0; k < shape.size(); ++k)
          figure.shape.push_back(shape.at(k).integer());
        const Field rows = g.at("rows");
        for (std::size_t r = 0; r < rows.size(); ++r) {
          const Field row = rows.at(r);
          figure.rows.push_back({row.at("rank").integer(), row.at("student").text(),
                                 row.at("ratio").number(), row.at("value").number()});
        }
        out.figures.push_back(std::move(figure));
      }
      board.boards.push_back(std::move(out));
    }
    const Field rejected = root.at("rejected");
    for (std::size_t i = 0; i < rejected.size(); ++i) {
      const Field r = rejected.at(i);
      board.rejected.push_back({r.at("file").text(), r.at("reason").text()});
    }
  } catch (const std::exception& e) {
    return path + ": " + e.what();
  }
  return board;
}

ScoreChart score_chart(const LeaderboardBoard& board) {
  std::vector<std::pair<std::string, double>> values;
  for (const auto& e : board.overall)
    if (e.score) values.emplace_back(std::to_string(e.rank) + ". " + e.student, *e.score);
  return chart(values);
}

ScoreChart ratio_chart(const LeaderboardFigure& figure) {
  std::vector<std::pair<std::string, double>> values;
  for (const auto& r : figure.rows)
    values.emplace_back(std::to_string(r.rank) + ". " + r.student, r.ratio);
  return chart(values);
}

}  // namespace cudalab::viewer
