#include "bars_model.hpp"

#include <algorithm>
#include <cstdio>

namespace cudalab::viewer {

std::string anchor_label(const std::string& name) {
  if (name == "copy_bandwidth") return "copy";
  if (name.rfind("pytorch", 0) == 0) return "PyTorch";
  return name.substr(0, name.find('@'));
}

BarChart bars_for_problem(const BenchResult& result, const std::string& problem) {
  BarChart chart;
  chart.problem = problem;
  for (const Measurement& m : result.versions) {
    if (m.problem != problem) continue;
    if (chart.bars.empty()) chart.unit = m.unit;
    if (m.unit != chart.unit) continue;
    const std::string of = m.fraction ? anchor_label(m.fraction_of) : "";
    chart.bars.push_back({m.version, m.value, m.time_ms, m.fraction, of});
    if (m.fraction && chart.fraction_anchor.empty()) chart.fraction_anchor = of;
  }
  for (const AnchorFigure& a : result.anchors) {
    const bool of_this_problem = a.problem == problem || (problem.size() > a.problem.size() &&
                                                          problem.ends_with(" " + a.problem));
    if (a.unit != chart.unit || !(a.problem.empty() || of_this_problem)) continue;
    const std::string label = anchor_label(a.name);
    auto same = std::find_if(chart.anchors.begin(), chart.anchors.end(),
                             [&](const AnchorLine& line) { return line.name == label; });
    if (same == chart.anchors.end())
      chart.anchors.push_back({label, a.value});
    else if (!a.problem.empty())
      same->value = a.value;  // measured on this problem: beats the run-wide figure
  }
  for (const Bar& b : chart.bars) chart.max_value = std::max(chart.max_value, b.value);
  for (const AnchorLine& a : chart.anchors) chart.max_value = std::max(chart.max_value, a.value);
  return chart;
}

std::string bar_text(const BarChart& chart, const Bar& bar) {
  char text[160];
  const char* format = bar.value >= 100 ? "%.0f %s" : "%.4g %s";
  int n = std::snprintf(text, sizeof text, format, bar.value, chart.unit.c_str());
  if (bar.fraction)
    n += std::snprintf(text + n, sizeof text - n, "  %.0f%% of %s", *bar.fraction * 100,
                       bar.fraction_of.c_str());
  if (bar.time_ms > 0) std::snprintf(text + n, sizeof text - n, "  %.3f ms", bar.time_ms);
  return text;
}

}  // namespace cudalab::viewer
