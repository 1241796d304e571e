#include "error_plot_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>

namespace cudalab::viewer {
namespace {

// Exact for whole powers in the bases the plots use (log10(1000) is 3).
double log_in(int base, double value) {
  if (base == 10) return std::log10(value);
  if (base == 2) return std::log2(value);
  return std::log(value) / std::log(static_cast<double>(base));
}

template <typename Pick>
LogAxis axis_over(const ErrorPlot& plot, int base, Pick pick) {
  bool any = false;
  double lo = 0, hi = 0;
  for (const Series& s : plot.series)
    for (const PlotPoint& p : s.points) {
      const double v = pick(p);
      if (!(v > 0) || !std::isfinite(v)) continue;
      lo = any ? std::min(lo, v) : v;
      hi = any ? std::max(hi, v) : v;
      any = true;
    }
  LogAxis axis;
  axis.base = base;
  if (!any) return axis;
  axis.first_decade = static_cast<int>(std::floor(log_in(base, lo)));
  axis.last_decade = static_cast<int>(std::ceil(log_in(base, hi)));
  if (axis.last_decade <= axis.first_decade) axis.last_decade = axis.first_decade + 1;
  return axis;
}

}  // namespace

double LogAxis::position(double value) const {
  if (!(value > 0)) return 0.0;
  const double t = (log_in(base, value) - first_decade) / (last_decade - first_decade);
  return std::clamp(t, 0.0, 1.0);
}

std::vector<double> LogAxis::ticks() const {
  std::vector<double> out;
  for (int d = first_decade; d <= last_decade; ++d)
    out.push_back(std::pow(static_cast<double>(base), d));
  return out;
}

LogAxis x_axis(const ErrorPlot& plot) {
  return axis_over(plot, plot.x_log_base, [](const PlotPoint& p) { return p.x; });
}
LogAxis y_axis(const ErrorPlot& plot) {
  return axis_over(plot, 10, [](const PlotPoint& p) { return p.y; });
}

Rgba series_colour(std::size_t series) {
  // Eight colours any two of which differ at a glance on the dark plot (after
  // Okabe and Ito's colour-blind-safe set; lab 02 plots up to seven series),
  // then the categorical palette's saturated shades.
  static constexpr Rgba kSeries[] = {{230, 159, 0, 255},   {86, 200, 233, 255}, {0, 170, 120, 255},
                                     {240, 228, 66, 255},  {80, 110, 245, 255}, {235, 85, 40, 255},
                                     {214, 121, 187, 255}, {200, 200, 200, 255}};
  constexpr std::size_t kCount = sizeof kSeries / sizeof kSeries[0];
  return series < kCount ? kSeries[series] : categorical(32 + (series - kCount) % 16);
}

PlotPixel point_pixel(const LogAxis& x, const LogAxis& y, PlotPoint p, double width,
                      double height) {
  return {x.position(p.x) * width, (1.0 - y.position(p.y)) * height};
}

std::string decade_label(double value) {
  char text[16];
  std::snprintf(text, sizeof text, "1e%+03d", static_cast<int>(std::lround(std::log10(value))));
  return text;
}

}  // namespace cudalab::viewer

namespace cudalab::viewer {

std::string tick_label(const LogAxis& axis, double value) {
  if (axis.base != 2) return decade_label(value);
  static constexpr const char* kUnits[] = {"", "K", "M", "G", "T", "P"};
  std::size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < std::size(kUnits)) value /= 1024.0, ++unit;
  char text[16];
  std::snprintf(text, sizeof text, "%g%s", value, kUnits[unit]);
  return text;
}

}  // namespace cudalab::viewer
