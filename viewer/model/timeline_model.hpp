// What the timeline view draws: rows (streams, ranks, or the blocks that ran
// at once) along a time axis, each holding named spans; for streams also the
// dependency arrows (an operation ordered after one on another stream) and
// races (both operations red, joined by a line). The geometry is computed
// here so that tests can check it without a window.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "palette.hpp"

namespace cudalab::viewer {

struct Span {
  std::string name;  // "block (3,0,0)", "matmul", "H2D copy"
  double start = 0, end = 0;
  std::string kind;  // spans of one kind share a colour ("kernel", "copy"); may be empty
  // Streams timelines only (cudalab::Span): the span's number in its
  // timeline (-1: none), the ids of the spans it was ordered after, and the
  // race checker's text when it is in a race ("" when not).
  int id = -1;
  std::vector<int> after{};
  std::string race{};
  // A few characters drawn inside the box when they fit ("c2 > r1"; in a
  // narrow box only the first word, "c2"); the name stays the hover text.
  std::string label{};
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

// The kinds in order of first appearance (the legend).
std::vector<std::string> kinds(const Timeline& timeline);
// The emulator's operations have fixed colours (kernel, copy, memset,
// host_function, allocation, free; also collective and wait), none of them
// red; any other kind gets a categorical colour by its place in kinds().
Rgba kind_colour(const Timeline& timeline, const std::string& kind);
// What a span is filled with: kRaceColour when it is in a race, else its kind's.
Rgba span_colour(const Timeline& timeline, const Span& span);
inline constexpr Rgba kRaceColour{230, 30, 30, 255};
// Dependency arrows and their heads (light, to stand out on every kind).
inline constexpr Rgba kArrowColour{245, 245, 245, 255};

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

// A span by its place: row, then index in the row.
struct SpanRef {
  std::size_t row = 0, index = 0;
  friend bool operator==(const SpanRef&, const SpanRef&) = default;
};
std::optional<SpanRef> span_with_id(const Timeline& timeline, int id);
// The other span with the same race text (the first found), if any.
std::optional<SpanRef> race_partner(const Timeline& timeline, SpanRef span);

// Where the timeline is drawn: the canvas's left and top edge and width in
// pixels, the height of one row's band, the time range shown.
struct TimelineFrame {
  double x0 = 0, y0 = 0, width = 1, row_pitch = 1;
  TimeRange range{0, 1};
};
struct Point {
  double x = 0, y = 0;
};
// A span's box: span_pixels across, the band of its row less 15% at the top
// and bottom (the gap between rows, where arrows are easy to see).
struct Box {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  Point centre() const { return {(x0 + x1) / 2, (y0 + y1) / 2}; }
};
Box span_box(const Timeline& timeline, SpanRef span, const TimelineFrame& frame);

// From the end (right edge, middle) of the span waited for to the start
// (left edge, middle) of the span that waited: one per `after` id that names
// a span; a dangling id draws nothing.
struct Arrow {
  SpanRef from, to;
  Point tail, head;
};
std::vector<Arrow> dependency_arrows(const Timeline& timeline, const TimelineFrame& frame);
// The two points of an arrowhead of `size` pixels at arrow.head.
std::pair<Point, Point> arrowhead(const Arrow& arrow, double size);

// A line joining the centres of the two spans of a race; each pair once
// (three spans with one text: the first joined to each other).
struct RaceLink {
  SpanRef first, second;
  Point from, to;
  std::string text;
};
std::vector<RaceLink> race_links(const Timeline& timeline, const TimelineFrame& frame);

// "block (3,0,0): 0.120 .. 0.410 ms (0.290 ms)"; for a span in a race, the
// race's text and the other span on the lines below.
std::string describe_span(const Timeline& timeline, const Span& span);

}  // namespace cudalab::viewer
