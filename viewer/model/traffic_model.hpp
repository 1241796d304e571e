// What the traffic view draws: the bytes each rank sent, one bar per rank
// split by the peer it went to, next to the least any algorithm must send
// (for an all-reduce the ring's 2(n-1)/n of the buffer) as a marked line.
// Filled from a run's ranks x ranks byte counts; no ImGui, unit-tested.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "palette.hpp"

namespace cudalab::viewer {

struct TrafficPart {
  int to = 0;
  std::uint64_t bytes = 0;
};

struct TrafficBar {
  std::string label;  // "rank 2"
  std::uint64_t bytes = 0;
  std::vector<TrafficPart> parts;  // non-zero only, by peer
  // A bar's own reference, where the bars are of different jobs (lab 06:
  // naive vs fused attention, each next to its formula): a tick over the bar.
  std::optional<double> ideal;
  std::string ideal_label;  // "4 (4 n^2 + 4 n d)"
};

struct TrafficChart {
  std::string title;
  std::vector<TrafficBar> bars;  // one per sending rank
  std::optional<double> ideal;   // bytes each rank should send
  std::string ideal_label;       // "ring: 2(n-1)/n x S"
  double max_value = 0;          // axis extent: the largest bar or the ideal
  // What the parts are, when not ranks (lab 06: "loads", "stores"):
  // part_names[to] names part `to` in the legend and the bar text.
  std::vector<std::string> part_names;
  std::string legend_title = "sent to:";
};

// A chart of bars that are not ranks: each bar's parts named by part_names
// (part i of every bar is part_names[i]), with a reference of its own.
TrafficChart named_bar_chart(const std::string& title, std::vector<std::string> part_names,
                             const std::string& legend_title, std::vector<TrafficBar> bars);

// The legend's name of part `to` ("rank 2", or its part name).
std::string part_name(const TrafficChart& chart, int to);

// `bytes_from_to[from * ranks + to]`, as cudalab::comm::Traffic holds them.
TrafficChart traffic_chart(int ranks, const std::vector<std::uint64_t>& bytes_from_to,
                           std::optional<double> ideal, const std::string& ideal_label,
                           const std::string& title);

// The bytes of one rank's bar as drawn: 0 .. width pixels for 0 .. max_value
// (a margin of 5% past it, so that the largest bar ends inside).
double bar_pixels(const TrafficChart& chart, double bytes, double width);

// "1,500 B", "2.0 KiB", "3.1 MiB": a byte count as shown.
std::string byte_text(double bytes);

// "4,000 B  1.00 of ideal  (to 1: 4,000 B)": what a bar's text says.
std::string bar_text(const TrafficChart& chart, const TrafficBar& bar);

// A peer's colour in the bars (categorical, apart from the ideal's line).
Rgba peer_colour(int to);
inline constexpr Rgba kIdealColour{90, 210, 120, 255};

}  // namespace cudalab::viewer
