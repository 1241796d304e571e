#include "timing_model.hpp"

#include <algorithm>

namespace cudalab::viewer {

std::vector<std::string> problems(const BenchResult& result) {
  std::vector<std::string> out;
  for (const Measurement& m : result.versions)
    if (std::find(out.begin(), out.end(), m.problem) == out.end()) out.push_back(m.problem);
  return out;
}

TimingChart chart_for_problem(const BenchResult& result, const std::string& problem) {
  TimingChart chart;
  chart.problem = problem;
  chart.copy_gbps = result.copy_gbps;
  chart.pytorch_gbps = result.pytorch_gbps;
  for (const Measurement& m : result.pytorch)
    if (m.problem == problem) chart.pytorch_gbps = m.bandwidth_gbps;
  for (const Measurement& m : result.versions) {
    if (m.problem != problem) continue;
    Bar bar{m.version, m.time_ms, m.bandwidth_gbps, 0.0};
    if (chart.copy_gbps && *chart.copy_gbps > 0)
      bar.fraction_of_copy = m.bandwidth_gbps / *chart.copy_gbps;
    chart.max_gbps = std::max(chart.max_gbps, m.bandwidth_gbps);
    chart.versions.push_back(bar);
  }
  chart.max_gbps =
      std::max({chart.max_gbps, chart.copy_gbps.value_or(0), chart.pytorch_gbps.value_or(0)});
  return chart;
}

}  // namespace cudalab::viewer
