#include "error_plot_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace cudalab::viewer {
namespace {

template <typename Pick>
LogAxis axis_over(const ErrorPlot& plot, Pick pick) {
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
  if (!any) return {};
  LogAxis axis;
  axis.first_decade = static_cast<int>(std::floor(std::log10(lo)));
  axis.last_decade = static_cast<int>(std::ceil(std::log10(hi)));
  if (axis.last_decade <= axis.first_decade) axis.last_decade = axis.first_decade + 1;
  return axis;
}

}  // namespace

double LogAxis::position(double value) const {
  if (!(value > 0)) return 0.0;
  const double t = (std::log10(value) - first_decade) / (last_decade - first_decade);
  return std::clamp(t, 0.0, 1.0);
}

std::vector<double> LogAxis::ticks() const {
  std::vector<double> out;
  for (int d = first_decade; d <= last_decade; ++d) out.push_back(std::pow(10.0, d));
  return out;
}

LogAxis x_axis(const ErrorPlot& plot) {
  return axis_over(plot, [](const PlotPoint& p) { return p.x; });
}
LogAxis y_axis(const ErrorPlot& plot) {
  return axis_over(plot, [](const PlotPoint& p) { return p.y; });
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
