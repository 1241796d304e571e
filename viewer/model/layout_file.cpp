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

}  // namespace

void write_layout(const std::string& path, const DrawnLayout& layout) {
  nlohmann::json j;
  j["indexing_canvas"] = to_json(layout.indexing_canvas);
  j["coalescing_panes"] = {to_json(layout.coalescing_panes[0]),
                           to_json(layout.coalescing_panes[1])};
  j["timing_chart"] = to_json(layout.timing_chart);
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
    return layout;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("layout file '" + path + "': " + e.what());
  }
}

}  // namespace cudalab::viewer
