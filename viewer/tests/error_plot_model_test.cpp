#include "model/error_plot_model.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace cudalab::viewer {
namespace {

ErrorPlot sample() {
  ErrorPlot plot;
  plot.series = {{"fp32", {{256, 3e-8}, {4096, 2e-6}, {65536, 4e-5}}}, {"tree", {{256, 0}}}};
  return plot;
}

TEST(ErrorPlotModel, AxesSpanWholeDecadesAroundThePositiveValues) {
  const ErrorPlot plot = sample();
  const LogAxis x = x_axis(plot), y = y_axis(plot);
  EXPECT_EQ(x.first_decade, 2);
  EXPECT_EQ(x.last_decade, 5);
  EXPECT_EQ(y.first_decade, -8);  // the 0 of "tree" is not on a log axis
  EXPECT_EQ(y.last_decade, -4);
  EXPECT_EQ(y.ticks().size(), 5u);
}

TEST(ErrorPlotModel, PositionsAreLogarithmic) {
  const LogAxis axis{0, 4};
  EXPECT_DOUBLE_EQ(axis.position(1), 0.0);
  EXPECT_DOUBLE_EQ(axis.position(100), 0.5);
  EXPECT_DOUBLE_EQ(axis.position(1e4), 1.0);
  EXPECT_DOUBLE_EQ(axis.position(0), 0.0);  // zero sits on the lowest decade
  EXPECT_DOUBLE_EQ(axis.position(1e9), 1.0);
}

TEST(ErrorPlotModel, ASingleValueStillGetsADecade) {
  ErrorPlot plot;
  plot.series = {{"one", {{1000, 1000}}}};
  const LogAxis x = x_axis(plot);
  EXPECT_EQ(x.first_decade, 3);
  EXPECT_EQ(x.last_decade, 4);
}

TEST(ErrorPlotModel, PixelsGrowDownwardsForSmallerErrors) {
  const LogAxis x{2, 6}, y{-8, -4};
  const PlotPixel big = point_pixel(x, y, {1e4, 1e-4}, 400, 200);
  const PlotPixel small = point_pixel(x, y, {1e4, 1e-8}, 400, 200);
  EXPECT_DOUBLE_EQ(big.x, 200);
  EXPECT_DOUBLE_EQ(big.y, 0);
  EXPECT_DOUBLE_EQ(small.y, 200);
}

TEST(ErrorPlotModel, SeriesColoursDifferAndLabelsNameTheDecade) {
  EXPECT_NE(series_colour(0), series_colour(1));
  EXPECT_NE(series_colour(1), series_colour(2));
  EXPECT_EQ(decade_label(1e-6), "1e-06");
  EXPECT_EQ(decade_label(1000), "1e+03");
}

// Lab 02 plots five GEMM modes (seven with the student's): every pair of the
// first eight series must be told apart at a glance.
TEST(ErrorPlotModel, TheFirstEightSeriesColoursAreFarApart) {
  for (std::size_t a = 0; a < 8; ++a)
    for (std::size_t b = a + 1; b < 8; ++b) {
      const Rgba x = series_colour(a), y = series_colour(b);
      const int distance = std::abs(x.r - y.r) + std::abs(x.g - y.g) + std::abs(x.b - y.b);
      EXPECT_GE(distance, 100) << "series " << a << " and " << b;
    }
}

// Lab 04's busbw against the message size: one grid line per power of two,
// labelled in binary units.
TEST(ErrorPlotModel, ABase2AxisSpansWholePowersOfTwoWithByteLabels) {
  ErrorPlot plot;
  plot.x_log_base = 2;
  plot.series = {{"busbw", {{1024, 0.08}, {3 << 20, 42.0}, {1 << 30, 324.0}}}};
  const LogAxis x = x_axis(plot), y = y_axis(plot);
  EXPECT_EQ(x.base, 2);
  EXPECT_EQ(x.first_decade, 10);
  EXPECT_EQ(x.last_decade, 30);
  EXPECT_EQ(x.ticks().size(), 21u);
  EXPECT_DOUBLE_EQ(x.position(1 << 20), 0.5);
  EXPECT_EQ(y.base, 10);  // y stays in decades
  EXPECT_EQ(y.first_decade, -2);
  EXPECT_EQ(y.last_decade, 3);
  EXPECT_EQ(tick_label(x, 512), "512");
  EXPECT_EQ(tick_label(x, 1024), "1K");
  EXPECT_EQ(tick_label(x, 64 * 1024), "64K");
  EXPECT_EQ(tick_label(x, 1 << 30), "1G");
  EXPECT_EQ(tick_label(y, 100), "1e+02");
}

}  // namespace
}  // namespace cudalab::viewer
