#include "layout_file.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace cudalab::viewer {
namespace {

nlohmann::json to_json(const Rect& r) { return {r.x0, r.y0, r.x1, r.y1}; }
Rect to_rect(const nlohmann::json& j) {
  return {j.at(0).get<float>(), j.at(1).get<float>(), j.at(2).get<float>(), j.at(3).get<float>()};
}

nlohmann::json to_json(const std::vector<Rect>& rects) {
  nlohmann::json j = nlohmann::json::array();
  for (const Rect& r : rects) j.push_back(to_json(r));
  return j;
}
std::vector<Rect> to_rects(const nlohmann::json& j) {
  std::vector<Rect> rects;
  for (const auto& r : j) rects.push_back(to_rect(r));
  return rects;
}

nlohmann::json to_json(const Timeline& t) {
  nlohmann::json rows = nlohmann::json::array();
  for (const TimelineRow& row : t.rows) {
    nlohmann::json spans = nlohmann::json::array();
    for (const Span& s : row.spans)
      spans.push_back({{"name", s.name},
                       {"start", s.start},
                       {"end", s.end},
                       {"kind", s.kind},
                       {"id", s.id},
                       {"after", s.after},
                       {"race", s.race}});
    rows.push_back({{"name", row.name}, {"spans", spans}});
  }
  return {{"title", t.title}, {"unit", t.unit}, {"rows", rows}};
}
Timeline to_timeline(const nlohmann::json& j) {
  Timeline t{j.at("title").get<std::string>(), j.at("unit").get<std::string>(), {}};
  for (const auto& row : j.at("rows")) {
    TimelineRow r{row.at("name").get<std::string>(), {}};
    for (const auto& s : row.at("spans"))
      r.spans.push_back({s.at("name").get<std::string>(), s.at("start").get<double>(),
                         s.at("end").get<double>(), s.at("kind").get<std::string>(),
                         s.value("id", -1), s.value("after", std::vector<int>{}),
                         s.value("race", std::string{})});
    t.rows.push_back(std::move(r));
  }
  return t;
}

}  // namespace

void write_layout(const std::string& path, const DrawnLayout& layout) {
  nlohmann::json j;
  j["indexing_canvas"] = to_json(layout.indexing_canvas);
  j["coalescing_panes"] = {to_json(layout.coalescing_panes[0]),
                           to_json(layout.coalescing_panes[1])};
  j["timing_chart"] = to_json(layout.timing_chart);
  j["timeline_canvas"] = to_json(layout.timeline_canvas);
  j["timeline_rows"] = to_json(layout.timeline_rows);
  if (layout.timeline) j["timeline"] = to_json(*layout.timeline);
  j["error_plot"] = to_json(layout.error_plot);
  j["tile_grids"] = to_json(layout.tile_grids);
  j["bit_rows"] = to_json(layout.bit_rows);
  j["fragment_matrices"] = to_json(layout.fragment_matrices);
  j["traffic_bars"] = to_json(layout.traffic_bars);
  j["swizzle_grid"] = to_json(layout.swizzle_grid);
  j["timing_anchor_x"] = layout.timing_anchor_x;
  j["timing_anchor_labels"] = to_json(layout.timing_anchor_labels);
  j["message"] = layout.message;
  j["message_rect"] = to_json(layout.message_rect);
  std::ofstream out(path);
  out << j.dump(2) << "\n";
  if (!out) throw std::runtime_error("cannot write layout file '" + path + "'");
}

DrawnLayout read_layout(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open layout file '" + path + "'");
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    DrawnLayout layout;
    layout.indexing_canvas = to_rect(j.at("indexing_canvas"));
    layout.coalescing_panes[0] = to_rect(j.at("coalescing_panes").at(0));
    layout.coalescing_panes[1] = to_rect(j.at("coalescing_panes").at(1));
    layout.timing_chart = to_rect(j.at("timing_chart"));
    layout.timeline_canvas = to_rect(j.at("timeline_canvas"));
    layout.timeline_rows = to_rects(j.at("timeline_rows"));
    if (j.contains("timeline")) layout.timeline = to_timeline(j.at("timeline"));
    layout.error_plot = to_rect(j.at("error_plot"));
    layout.tile_grids = to_rects(j.at("tile_grids"));
    layout.bit_rows = to_rects(j.at("bit_rows"));
    layout.fragment_matrices = to_rects(j.at("fragment_matrices"));
    if (j.contains("traffic_bars")) layout.traffic_bars = to_rects(j.at("traffic_bars"));
    if (j.contains("swizzle_grid")) layout.swizzle_grid = to_rect(j.at("swizzle_grid"));
    layout.timing_anchor_x = j.value("timing_anchor_x", std::vector<float>{});
    if (j.contains("timing_anchor_labels"))
      layout.timing_anchor_labels = to_rects(j.at("timing_anchor_labels"));
    layout.message = j.value("message", std::string{});
    if (j.contains("message_rect")) layout.message_rect = to_rect(j.at("message_rect"));
    return layout;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("layout file '" + path + "': " + e.what());
  }
}

}  // namespace cudalab::viewer
