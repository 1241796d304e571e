#include "bars_model.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace cudalab::viewer {
namespace {

// "8 MiB", "1 GiB", "5.43 MiB": a byte count as a reader says it.
std::string bytes_text(unsigned long long bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) value /= 1024, ++unit;
  char text[32];
  std::snprintf(text, sizeof text, "%.3g %s", value, units[unit]);
  return text;
}

// copy_<N>_bytes: the device-to-device copy of N bytes (lab 01's and lab
// 05's same-size copies).
std::optional<unsigned long long> copy_size(const std::string& name) {
  const std::string head = "copy_", tail = "_bytes";
  if (name.size() <= head.size() + tail.size() || name.rfind(head, 0) != 0 || !name.ends_with(tail))
    return std::nullopt;
  const std::string digits = name.substr(head.size(), name.size() - head.size() - tail.size());
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return std::isdigit(c); }))
    return std::nullopt;
  return std::stoull(digits);
}

bool of_problem(const AnchorFigure& a, const std::string& problem) {
  return !a.problem.empty() && (a.problem == problem || (problem.size() > a.problem.size() &&
                                                         problem.ends_with(" " + a.problem)));
}

}  // namespace

std::string anchor_label(const std::string& name) {
  if (name == "copy_bandwidth") return "copy";
  if (const auto bytes = copy_size(name)) return "copy " + bytes_text(*bytes);
  const std::string pytorch = "pytorch:";
  if (name.rfind(pytorch, 0) == 0) {
    std::string what = name.substr(pytorch.size());
    for (const std::string prefix : {"pytorch_", "torch_"})
      if (what.rfind(prefix, 0) == 0 && what.size() > prefix.size()) {
        what = what.substr(prefix.size());
        break;
      }
    return what.empty() ? "PyTorch" : "PyTorch " + what;
  }
  if (name.rfind("pytorch", 0) == 0) return "PyTorch";
  return name.substr(0, name.find('@'));
}

std::string anchor_family(const std::string& name) {
  if (name == "copy_bandwidth" || copy_size(name)) return "copy";
  if (name.rfind("pytorch", 0) == 0) return "PyTorch";
  return anchor_label(name);
}

BarChart bars_for_problem(const BenchResult& result, const std::string& problem) {
  BarChart chart;
  chart.problem = problem;
  std::vector<std::string> named_here;  // the anchors this chart's bars name, as in the file
  bool file_names_anchors = false;
  for (const Measurement& m : result.versions) {
    file_names_anchors |= m.fraction.has_value() && !m.fraction_of.empty();
    if (m.problem != problem) continue;
    if (chart.bars.empty()) chart.unit = m.unit;
    if (m.unit != chart.unit) continue;
    const std::string of = m.fraction ? anchor_label(m.fraction_of) : "";
    chart.bars.push_back({m.version, m.value, m.time_ms, m.fraction, of});
    if (m.fraction) named_here.push_back(m.fraction_of);
    if (m.fraction && chart.fraction_anchor.empty()) chart.fraction_anchor = of;
  }
  auto named = [&](const std::string& name) {
    return std::find(named_here.begin(), named_here.end(), name) != named_here.end();
  };
  // Measured on this problem, then the run-wide ones that belong here.
  std::vector<const AnchorFigure*> drawn;
  for (const AnchorFigure& a : result.anchors)
    if (a.unit == chart.unit && of_problem(a, problem)) drawn.push_back(&a);
  for (const AnchorFigure& a : result.anchors) {
    if (a.unit != chart.unit || !a.problem.empty()) continue;
    if (!named(a.name) && file_names_anchors) continue;  // another chart's, or none's
    const bool replaced =
        !named(a.name) && std::any_of(drawn.begin(), drawn.end(), [&](const AnchorFigure* d) {
          return anchor_family(d->name) == anchor_family(a.name);
        });
    if (!replaced) drawn.push_back(&a);
  }
  for (const AnchorFigure* a : drawn) {
    const std::string label = anchor_label(a->name);
    const bool same = std::any_of(chart.anchors.begin(), chart.anchors.end(),
                                  [&](const AnchorLine& line) { return line.name == label; });
    if (!same) chart.anchors.push_back({label, a->value, anchor_family(a->name)});
  }
  // Each fraction from the line it names: the percentage and the line agree.
  for (Bar& b : chart.bars) {
    if (!b.fraction) continue;
    const auto line = std::find_if(chart.anchors.begin(), chart.anchors.end(),
                                   [&](const AnchorLine& l) { return l.name == b.fraction_of; });
    if (line != chart.anchors.end() && line->value > 0) b.fraction = b.value / line->value;
  }
  for (const Bar& b : chart.bars) chart.max_value = std::max(chart.max_value, b.value);
  for (const AnchorLine& a : chart.anchors) chart.max_value = std::max(chart.max_value, a.value);
  return chart;
}

std::vector<LabelSpan> place_anchor_labels(const std::vector<float>& line_x,
                                           const std::vector<float>& widths, float gap,
                                           float left_end, float right_end) {
  std::vector<LabelSpan> spans;
  for (std::size_t i = 0; i < line_x.size() && i < widths.size(); ++i) {
    auto crosses = [&](float x0, float x1) {
      for (std::size_t j = 0; j < line_x.size(); ++j)
        if (j != i && line_x[j] >= x0 && line_x[j] <= x1) return true;
      return false;
    };
    const LabelSpan right{line_x[i] + gap, line_x[i] + gap + widths[i]};
    const LabelSpan left{line_x[i] - gap - widths[i], line_x[i] - gap};
    const bool right_ok = !crosses(right.x0, right.x1) && right.x1 <= right_end;
    const bool left_ok = !crosses(left.x0, left.x1) && left.x0 >= left_end;
    spans.push_back(right_ok || !left_ok ? right : left);
  }
  return spans;
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
