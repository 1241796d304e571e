#include "bars_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace cudalab::viewer {

BarChart bars_for_problem(const BenchResult& result, const std::string& problem) {
  BarChart chart;
  chart.problem = problem;
  chart.unit = "GB/s";  // what the result reader keeps today
  chart.fraction_anchor = "copy";
  std::optional<double> pytorch = result.pytorch_gbps;
  for (const Measurement& m : result.pytorch)
    if (m.problem == problem) pytorch = m.bandwidth_gbps;  // per problem beats run-wide
  if (result.copy_gbps) chart.anchors.push_back({"copy", *result.copy_gbps});
  if (pytorch) chart.anchors.push_back({"PyTorch", *pytorch});

  for (const Measurement& m : result.versions) {
    if (m.problem != problem) continue;
    Bar bar{m.version, m.bandwidth_gbps, m.time_ms, std::nullopt};
    if (result.copy_gbps && *result.copy_gbps > 0)
      bar.fraction = m.bandwidth_gbps / *result.copy_gbps;
    chart.bars.push_back(bar);
  }
  for (const Bar& b : chart.bars) chart.max_value = std::max(chart.max_value, b.value);
  for (const AnchorLine& a : chart.anchors) chart.max_value = std::max(chart.max_value, a.value);
  return chart;
}

std::string bar_text(const BarChart& chart, const Bar& bar) {
  char text[128];
  int n = std::snprintf(text, sizeof text, "%.4g %s", bar.value, chart.unit.c_str());
  if (bar.value >= 100)
    n = std::snprintf(text, sizeof text, "%.0f %s", bar.value, chart.unit.c_str());
  if (bar.fraction)
    n += std::snprintf(text + n, sizeof text - n, "  %.0f%% of %s", *bar.fraction * 100,
                       chart.fraction_anchor.c_str());
  if (bar.time_ms > 0) std::snprintf(text + n, sizeof text - n, "  %.3f ms", bar.time_ms);
  return text;
}

}  // namespace cudalab::viewer
