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

Rgba kind_colour(const Timeline& timeline, const std::string& kind) {
  // Apart in hue from each other and from kRaceColour's red; arrive and
  // phase done are the pipeline view's (pipeline_model.hpp).
  static const std::pair<const char*, Rgba> kFixed[] = {
      {"kernel", {90, 160, 230, 255}},     {"copy", {80, 200, 120, 255}},
      {"memset", {150, 200, 60, 255}},     {"host_function", {200, 130, 230, 255}},
      {"allocation", {240, 190, 70, 255}}, {"free", {150, 150, 160, 255}},
      {"collective", {60, 200, 200, 255}}, {"wait", {110, 110, 190, 255}},
      {"arrive", {235, 140, 60, 255}},     {"phase done", {245, 235, 120, 255}},
  };
  for (const auto& [name, colour] : kFixed)
    if (kind == name) return colour;
  const auto all = kinds(timeline);
  const auto it = std::find(all.begin(), all.end(), kind);
  return categorical(static_cast<std::uint64_t>(it - all.begin()));
}

Rgba span_colour(const Timeline& timeline, const Span& span) {
  return span.race.empty() ? kind_colour(timeline, span.kind) : kRaceColour;
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

std::optional<SpanRef> span_with_id(const Timeline& timeline, int id) {
  if (id < 0) return std::nullopt;
  for (std::size_t r = 0; r < timeline.rows.size(); ++r)
    for (std::size_t i = 0; i < timeline.rows[r].spans.size(); ++i)
      if (timeline.rows[r].spans[i].id == id) return SpanRef{r, i};
  return std::nullopt;
}

namespace {

const Span& at(const Timeline& timeline, SpanRef ref) {
  return timeline.rows[ref.row].spans[ref.index];
}

std::optional<SpanRef> ref_of(const Timeline& timeline, const Span& span) {
  for (std::size_t r = 0; r < timeline.rows.size(); ++r)
    for (std::size_t i = 0; i < timeline.rows[r].spans.size(); ++i)
      if (&timeline.rows[r].spans[i] == &span) return SpanRef{r, i};
  return std::nullopt;
}

Point middle_of_left(const Box& b) { return {b.x0, (b.y0 + b.y1) / 2}; }
Point middle_of_right(const Box& b) { return {b.x1, (b.y0 + b.y1) / 2}; }

}  // namespace

std::optional<SpanRef> race_partner(const Timeline& timeline, SpanRef span) {
  const std::string& text = at(timeline, span).race;
  if (text.empty()) return std::nullopt;
  for (std::size_t r = 0; r < timeline.rows.size(); ++r)
    for (std::size_t i = 0; i < timeline.rows[r].spans.size(); ++i)
      if (SpanRef{r, i} != span && timeline.rows[r].spans[i].race == text) return SpanRef{r, i};
  return std::nullopt;
}

Box span_box(const Timeline& timeline, SpanRef span, const TimelineFrame& frame) {
  const SpanPixels p = span_pixels(at(timeline, span), frame.range, frame.width);
  const double band = frame.y0 + frame.row_pitch * static_cast<double>(span.row);
  return {frame.x0 + p.x0, band + frame.row_pitch * 0.15, frame.x0 + p.x1,
          band + frame.row_pitch * 0.85};
}

std::vector<Arrow> dependency_arrows(const Timeline& timeline, const TimelineFrame& frame) {
  std::vector<Arrow> arrows;
  for (std::size_t r = 0; r < timeline.rows.size(); ++r)
    for (std::size_t i = 0; i < timeline.rows[r].spans.size(); ++i)
      for (int id : timeline.rows[r].spans[i].after)
        if (const auto from = span_with_id(timeline, id)) {
          const SpanRef to{r, i};
          arrows.push_back({*from, to, middle_of_right(span_box(timeline, *from, frame)),
                            middle_of_left(span_box(timeline, to, frame))});
        }
  return arrows;
}

std::pair<Point, Point> arrowhead(const Arrow& arrow, double size) {
  double dx = arrow.head.x - arrow.tail.x, dy = arrow.head.y - arrow.tail.y;
  const double length = std::hypot(dx, dy);
  if (length > 0) {
    dx /= length, dy /= length;
  } else {
    dx = 1, dy = 0;  // a span that starts where the other ends: point right
  }
  const Point back{arrow.head.x - dx * size, arrow.head.y - dy * size};
  const double half = size * 0.5;
  return {{back.x - dy * half, back.y + dx * half}, {back.x + dy * half, back.y - dx * half}};
}

std::vector<RaceLink> race_links(const Timeline& timeline, const TimelineFrame& frame) {
  std::vector<RaceLink> links;
  std::vector<std::string> seen;  // race texts already joined
  for (std::size_t r = 0; r < timeline.rows.size(); ++r)
    for (std::size_t i = 0; i < timeline.rows[r].spans.size(); ++i) {
      const std::string& text = timeline.rows[r].spans[i].race;
      if (text.empty() || std::find(seen.begin(), seen.end(), text) != seen.end()) continue;
      seen.push_back(text);
      const SpanRef first{r, i};
      const Point from = span_box(timeline, first, frame).centre();
      for (std::size_t r2 = r; r2 < timeline.rows.size(); ++r2)
        for (std::size_t i2 = r2 == r ? i + 1 : 0; i2 < timeline.rows[r2].spans.size(); ++i2)
          if (timeline.rows[r2].spans[i2].race == text) {
            const SpanRef second{r2, i2};
            links.push_back(
                {first, second, from, span_box(timeline, second, frame).centre(), text});
          }
    }
  return links;
}

std::string describe_span(const Timeline& timeline, const Span& span) {
  char text[128];
  const char* unit = timeline.unit.c_str();
  std::snprintf(text, sizeof text, ": %.3f .. %.3f %s (%.3f %s)", span.start, span.end, unit,
                span.end - span.start, unit);
  std::string out = span.name + text + (span.kind.empty() ? "" : "  [" + span.kind + "]");
  if (span.race.empty()) return out;
  out += "\nIN A RACE: " + span.race;
  if (const auto self = ref_of(timeline, span))
    if (const auto other = race_partner(timeline, *self))
      out += "\nwith: " + at(timeline, *other).name + " on " + timeline.rows[other->row].name;
  return out;
}

}  // namespace cudalab::viewer
