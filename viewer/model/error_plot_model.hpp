// What the error plot draws: one or more series of (size, error) points on
// log-log axes, e.g. the relative error of an fp32 sum against its length.
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
};

// A base-10 log axis over whole decades. Values <= 0 have no place on it;
// they are drawn on the lowest decade (an error of exactly 0 is a result too).
struct LogAxis {
  int first_decade = 0, last_decade = 1;  // 10^first .. 10^last, last > first
  // 0 at 10^first_decade, 1 at 10^last_decade.
  double position(double value) const;
  std::vector<double> ticks() const;  // one per decade
};
// The decades that hold every positive value (x or y) of every series.
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

}  // namespace cudalab::viewer
