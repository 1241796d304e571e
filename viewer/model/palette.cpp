#include "palette.hpp"

#include <algorithm>
#include <cmath>

namespace cudalab::viewer {
namespace {

Rgba from_hsv(double h, double s, double v) {
  const double c = v * s;
  const double hp = std::fmod(h * 6.0, 6.0);
  const double x = c * (1.0 - std::fabs(std::fmod(hp, 2.0) - 1.0));
  double r = 0, g = 0, b = 0;
  switch (static_cast<int>(hp)) {
    case 0:
      r = c, g = x;
      break;
    case 1:
      r = x, g = c;
      break;
    case 2:
      g = c, b = x;
      break;
    case 3:
      g = x, b = c;
      break;
    case 4:
      r = x, b = c;
      break;
    default:
      r = c, b = x;
      break;
  }
  const double m = v - c;
  auto to8 = [m](double u) { return static_cast<std::uint8_t>(std::lround((u + m) * 255.0)); };
  return {to8(r), to8(g), to8(b), 255};
}

}  // namespace

Rgba categorical(std::uint64_t id) {
  // 16 hues (golden-ratio order, so neighbours differ) x 3 shades.
  const int k = static_cast<int>(id % kCategoricalColours);
  const double hue = std::fmod(0.08 + (k % 16) * 0.618033988749895, 1.0);
  static constexpr double kSaturation[] = {0.45, 0.30, 0.60};
  static constexpr double kValue[] = {0.92, 0.80, 0.70};
  return from_hsv(hue, kSaturation[k / 16], kValue[k / 16]);
}

Rgba ramp(double t) {
  t = std::clamp(t, 0.0, 1.0);
  // viridis-like: dark blue -> teal -> yellow, readable on a dark background.
  const Rgba lo{59, 82, 139}, mid{33, 145, 140}, hi{253, 231, 37};
  auto mix = [](Rgba a, Rgba b, double u) {
    auto m = [u](std::uint8_t p, std::uint8_t q) {
      return static_cast<std::uint8_t>(std::lround(p + (q - p) * u));
    };
    return Rgba{m(a.r, b.r), m(a.g, b.g), m(a.b, b.b), 255};
  };
  return t < 0.5 ? mix(lo, mid, t * 2) : mix(mid, hi, t * 2 - 1);
}

Rgba never_written() { return {0, 0, 0, 255}; }
Rgba written_twice() { return {235, 20, 40, 255}; }

Rgba dimmed(Rgba c) {
  auto d = [](std::uint8_t u) { return static_cast<std::uint8_t>(24 + u / 4); };
  return {d(c.r), d(c.g), d(c.b), 255};
}

}  // namespace cudalab::viewer
