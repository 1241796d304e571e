// RGBA images to and from PNG files (libpng): the screenshot mode writes
// them, the screenshot tests read them back.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "palette.hpp"

namespace cudalab::viewer {

struct Image {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgba;  // row-major, top row first
  Rgba at(int x, int y) const {
    const std::uint8_t* p = &rgba[(static_cast<std::size_t>(y) * width + x) * 4];
    return {p[0], p[1], p[2], p[3]};
  }
};

// Throws std::runtime_error naming the file and the problem. With
// `palette`, writes an 8-bit colour-mapped PNG (a fraction of the size, for
// the screenshots committed to docs/): the 256 most frequent colours are kept
// exactly and every other pixel takes the nearest of them (anti-aliased text).
void write_png(const std::string& path, const Image& image, bool palette = false);
Image read_png(const std::string& path);

}  // namespace cudalab::viewer
