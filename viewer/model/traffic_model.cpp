#include "traffic_model.hpp"

#include <algorithm>
#include <cstdio>

namespace cudalab::viewer {

TrafficChart traffic_chart(int ranks, const std::vector<std::uint64_t>& bytes_from_to,
                           std::optional<double> ideal, const std::string& ideal_label,
                           const std::string& title) {
  TrafficChart chart;
  chart.title = title;
  chart.ideal = ideal;
  chart.ideal_label = ideal_label;
  const auto n = static_cast<std::size_t>(std::max(ranks, 0));
  for (std::size_t from = 0; from < n; ++from) {
    TrafficBar bar{"rank " + std::to_string(from), 0, {}, {}, {}};
    for (std::size_t to = 0; to < n; ++to) {
      const std::size_t at = from * n + to;
      const std::uint64_t b = at < bytes_from_to.size() ? bytes_from_to[at] : 0;
      if (b == 0) continue;
      bar.parts.push_back({static_cast<int>(to), b});
      bar.bytes += b;
    }
    chart.max_value = std::max(chart.max_value, static_cast<double>(bar.bytes));
    chart.bars.push_back(std::move(bar));
  }
  if (ideal) chart.max_value = std::max(chart.max_value, *ideal);
  return chart;
}

TrafficChart named_bar_chart(const std::string& title, std::vector<std::string> part_names,
                             const std::string& legend_title, std::vector<TrafficBar> bars) {
  TrafficChart chart;
  chart.title = title;
  chart.part_names = std::move(part_names);
  chart.legend_title = legend_title;
  for (TrafficBar& bar : bars) {
    bar.bytes = 0;
    for (const TrafficPart& part : bar.parts) bar.bytes += part.bytes;
    chart.max_value = std::max(chart.max_value, static_cast<double>(bar.bytes));
    if (bar.ideal) chart.max_value = std::max(chart.max_value, *bar.ideal);
  }
  chart.bars = std::move(bars);
  return chart;
}

std::string part_name(const TrafficChart& chart, int to) {
  if (to >= 0 && static_cast<std::size_t>(to) < chart.part_names.size())
    return chart.part_names[static_cast<std::size_t>(to)];
  return "rank " + std::to_string(to);
}

double bar_pixels(const TrafficChart& chart, double bytes, double width) {
  return chart.max_value > 0 ? bytes / (chart.max_value * 1.05) * width : 0.0;
}

std::string byte_text(double bytes) {
  char text[48];
  if (bytes < 10 * 1024.0) {
    // Thousands separated: "4,004 B" reads at a glance.
    const auto whole = static_cast<long long>(bytes + 0.5);
    if (whole >= 1000)
      std::snprintf(text, sizeof text, "%lld,%03lld B", whole / 1000, whole % 1000);
    else
      std::snprintf(text, sizeof text, "%lld B", whole);
  } else if (bytes < 10 * 1024.0 * 1024.0) {
    std::snprintf(text, sizeof text, "%.1f KiB", bytes / 1024.0);
  } else if (bytes < 10 * 1024.0 * 1024.0 * 1024.0) {
    std::snprintf(text, sizeof text, "%.1f MiB", bytes / (1024.0 * 1024.0));
  } else {
    std::snprintf(text, sizeof text, "%.1f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  }
  return text;
}

std::string bar_text(const TrafficChart& chart, const TrafficBar& bar) {
  std::string text = byte_text(static_cast<double>(bar.bytes));
  const std::optional<double> ideal = bar.ideal ? bar.ideal : chart.ideal;
  if (ideal && *ideal > 0) {
    char ratio[48];
    std::snprintf(ratio, sizeof ratio, "  %.2f of %s", static_cast<double>(bar.bytes) / *ideal,
                  bar.ideal ? "its formula" : "ideal");
    text += ratio;
  }
  if (!bar.parts.empty()) {
    text += "  (";
    for (std::size_t i = 0; i < bar.parts.size(); ++i) {
      const int to = bar.parts[i].to;
      const std::string who =
          chart.part_names.empty() ? "to " + std::to_string(to) : part_name(chart, to);
      text += (i ? ", " : "") + who + ": " + byte_text(static_cast<double>(bar.parts[i].bytes));
    }
    text += ")";
  }
  return text;
}

Rgba peer_colour(int to) { return categorical(static_cast<std::uint64_t>(to) + 5); }

}  // namespace cudalab::viewer
