// What the error plot draws: one or more series of (size, error) points on
// log-log axes, e.g. the relative error of an fp32 sum against its length,
// or any figure against a size (lab 04: busbw against the message size, on a
// base-2 x axis).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "palette.hpp"

namespace cudalab::viewer {

struct PlotPoint {
  double x = 0, y = 0;
};

struct Series {
  std::string name;  // "fp32, one thread in order"
  std::vector<PlotPoint> points;
};

struct ErrorPlot {
  std::string title;
  std::string x_label = "size", y_label = "relative error";
  std::vector<Series> series;
  int x_log_base = 10;  // 2: one grid line per power of two (sizes in bytes)
};

// A log axis over whole powers of `base` (10: decades). Values <= 0 have no
// place on it; they are drawn on the lowest power (an error of exactly 0 is a
// result too).
struct LogAxis {
  int first_decade = 0, last_decade = 1;  // base^first .. base^last, last > first
  int base = 10;
  // 0 at base^first_decade, 1 at base^last_decade.
  double position(double value) const;
  std::vector<double> ticks() const;  // one per power
};
// The powers that hold every positive value (x or y) of every series; x in
// the plot's x_log_base, y in base 10.
LogAxis x_axis(const ErrorPlot& plot);
LogAxis y_axis(const ErrorPlot& plot);

Rgba series_colour(std::size_t series);

// Where point `p` of a plot is drawn inside a width x height area (y grows
// downwards as on screen).
struct PlotPixel {
  double x = 0, y = 0;
};
PlotPixel point_pixel(const LogAxis& x, const LogAxis& y, PlotPoint p, double width, double height);

// "1e-06", "1e+03": the tick label of a decade.
std::string decade_label(double value);
// A tick's label on `axis`: decade_label in base 10; in base 2 a size in
// bytes, "512", "1K", "64K", "1M", "1G".
std::string tick_label(const LogAxis& axis, double value);

}  // namespace cudalab::viewer
