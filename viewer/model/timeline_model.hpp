// What the timeline view draws: rows (streams, ranks, or the blocks that ran
// at once) along a time axis, each holding named spans.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "palette.hpp"

namespace cudalab::viewer {

struct Span {
  std::string name;  // "block (3,0,0)", "matmul", "H2D copy"
  double start = 0, end = 0;
  std::string kind;  // spans of one kind share a colour ("kernel", "copy"); may be empty
};

struct TimelineRow {
  std::string name;  // "stream 1", "rank 0"
  std::vector<Span> spans;
};

struct Timeline {
  std::string title;
  std::string unit = "ms";  // of start and end
  std::vector<TimelineRow> rows;
};

// Puts spans into as few rows as possible without overlap (first fit, in
// order of start time): for spans that carry no row of their own, e.g. the
// blocks of a launch, where the rows then show how many ran at once.
std::vector<TimelineRow> pack_rows(std::vector<Span> spans, const std::string& row_prefix);

struct TimeRange {
  double start = 0, end = 0;
  double length() const { return end - start; }
};
// From the earliest start to the latest end; {0, 1} for an empty timeline.
TimeRange extent(const Timeline& timeline);

// Round tick values (1, 2 or 5 times a power of ten apart) inside `range`,
// at most `most` of them: the time axis's labels.
std::vector<double> time_ticks(TimeRange range, int most = 8);

// The kinds in order of first appearance; a span's colour is its kind's index.
std::vector<std::string> kinds(const Timeline& timeline);
Rgba span_colour(const Timeline& timeline, const Span& span);

// Where a span is drawn in a canvas of `width` pixels showing `range`: at
// least `min_px` wide so that short spans stay visible, and one pixel short of
// its end so that back-to-back spans stay apart.
struct SpanPixels {
  double x0 = 0, x1 = 0;
};
SpanPixels span_pixels(const Span& span, TimeRange range, double width, double min_px = 3.0);

// The span under pixel x of row `row`, if any.
std::optional<std::size_t> span_at(const Timeline& timeline, std::size_t row, TimeRange range,
                                   double width, double x);

// "block (3,0,0): 0.120 .. 0.410 ms (0.290 ms)"
std::string describe_span(const Timeline& timeline, const Span& span);

}  // namespace cudalab::viewer
