#include "timeline_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace cudalab::viewer {

std::vector<TimelineRow> pack_rows(std::vector<Span> spans, const std::string& row_prefix) {
  std::stable_sort(spans.begin(), spans.end(),
                   [](const Span& a, const Span& b) { return a.start < b.start; });
  std::vector<TimelineRow> rows;
  std::vector<double> row_end;  // when each row is free again
  for (Span& span : spans) {
    std::size_t row = 0;
    while (row < rows.size() && row_end[row] > span.start) ++row;
    if (row == rows.size()) {
      rows.push_back({row_prefix + std::to_string(row), {}});
      row_end.push_back(span.end);
    }
    row_end[row] = span.end;
    rows[row].spans.push_back(std::move(span));
  }
  return rows;
}

TimeRange extent(const Timeline& timeline) {
  bool any = false;
  TimeRange range;
  for (const TimelineRow& row : timeline.rows)
    for (const Span& s : row.spans) {
      range.start = any ? std::min(range.start, s.start) : s.start;
      range.end = any ? std::max(range.end, s.end) : s.end;
      any = true;
    }
  if (!any) return {0, 1};
  if (range.length() <= 0) range.end = range.start + 1;
  return range;
}

std::vector<double> time_ticks(TimeRange range, int most) {
  std::vector<double> ticks;
  if (!(range.length() > 0) || most < 1) return ticks;
  const double rough = range.length() / most;
  const double decade = std::pow(10.0, std::floor(std::log10(rough)));
  double step = decade * 10;
  for (double m : {1.0, 2.0, 5.0})
    if (decade * m >= rough) {
      step = decade * m;
      break;
    }
  for (double t = std::ceil(range.start / step) * step; t <= range.end + step * 1e-9; t += step)
    ticks.push_back(t);
  return ticks;
}

std::vector<std::string> kinds(const Timeline& timeline) {
  std::vector<std::string> out;
  for (const TimelineRow& row : timeline.rows)
    for (const Span& s : row.spans)
      if (std::find(out.begin(), out.end(), s.kind) == out.end()) out.push_back(s.kind);
  return out;
}

Rgba span_colour(const Timeline& timeline, const Span& span) {
  const auto all = kinds(timeline);
  const auto it = std::find(all.begin(), all.end(), span.kind);
  return categorical(static_cast<std::uint64_t>(it - all.begin()));
}

SpanPixels span_pixels(const Span& span, TimeRange range, double width, double min_px) {
  const double scale = width / range.length();
  SpanPixels p;
  p.x0 = (span.start - range.start) * scale;
  p.x1 = std::max((span.end - range.start) * scale - 1.0, p.x0 + min_px);
  return p;
}

std::optional<std::size_t> span_at(const Timeline& timeline, std::size_t row, TimeRange range,
                                   double width, double x) {
  if (row >= timeline.rows.size()) return std::nullopt;
  const auto& spans = timeline.rows[row].spans;
  for (std::size_t i = 0; i < spans.size(); ++i) {
    const SpanPixels p = span_pixels(spans[i], range, width);
    if (x >= p.x0 && x < p.x1) return i;
  }
  return std::nullopt;
}

std::string describe_span(const Timeline& timeline, const Span& span) {
  char text[128];
  const char* unit = timeline.unit.c_str();
  std::snprintf(text, sizeof text, ": %.3f .. %.3f %s (%.3f %s)", span.start, span.end, unit,
                span.end - span.start, unit);
  return span.name + text + (span.kind.empty() ? "" : "  [" + span.kind + "]");
}

}  // namespace cudalab::viewer
