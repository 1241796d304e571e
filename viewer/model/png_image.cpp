#include "png_image.hpp"

#include <png.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <memory>
#include <stdexcept>
#include <unordered_map>

namespace cudalab::viewer {
namespace {

using File = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

File open(const std::string& path, const char* mode) {
  File f(std::fopen(path.c_str(), mode), &std::fclose);
  if (!f) throw std::runtime_error("cannot open '" + path + "'");
  return f;
}

std::uint32_t rgb_key(const std::uint8_t* p) { return p[0] | p[1] << 8 | p[2] << 16; }

// Indices into a colour map of at most 256 RGB entries (see write_png).
struct Mapped {
  std::vector<std::uint8_t> indices;
  std::vector<std::uint8_t> colour_map;  // RGB triples
};
Mapped map_colours(const Image& image) {
  std::unordered_map<std::uint32_t, std::uint64_t> counts;
  for (std::size_t i = 0; i < image.rgba.size(); i += 4) ++counts[rgb_key(&image.rgba[i])];
  std::vector<std::pair<std::uint64_t, std::uint32_t>> by_count;
  for (const auto& [key, n] : counts) by_count.push_back({n, key});
  std::sort(by_count.rbegin(), by_count.rend());
  by_count.resize(std::min<std::size_t>(by_count.size(), 256));

  Mapped m;
  std::unordered_map<std::uint32_t, std::uint8_t> index_of;
  for (const auto& [n, key] : by_count) {
    index_of[key] = static_cast<std::uint8_t>(m.colour_map.size() / 3);
    m.colour_map.insert(m.colour_map.end(),
                        {std::uint8_t(key), std::uint8_t(key >> 8), std::uint8_t(key >> 16)});
  }
  auto nearest = [&m](std::uint32_t key) {
    int best = 0, best_d = std::numeric_limits<int>::max();
    for (std::size_t e = 0; e < m.colour_map.size() / 3; ++e) {
      int d = 0;
      for (int c = 0; c < 3; ++c) {
        const int diff = int((key >> (8 * c)) & 255) - int(m.colour_map[e * 3 + c]);
        d += diff * diff;
      }
      if (d < best_d) best = static_cast<int>(e), best_d = d;
    }
    return static_cast<std::uint8_t>(best);
  };
  m.indices.reserve(image.rgba.size() / 4);
  for (std::size_t i = 0; i < image.rgba.size(); i += 4) {
    const std::uint32_t key = rgb_key(&image.rgba[i]);
    auto it = index_of.find(key);
    if (it == index_of.end()) it = index_of.emplace(key, nearest(key)).first;
    m.indices.push_back(it->second);
  }
  return m;
}

}  // namespace

// libpng reports errors by longjmp; the png_image API wraps that and reports
// through its `message` field instead.
void write_png(const std::string& path, const Image& image, bool palette) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  png.width = static_cast<png_uint_32>(image.width);
  png.height = static_cast<png_uint_32>(image.height);
  File f = open(path, "wb");
  int ok = 0;
  if (palette) {
    const Mapped m = map_colours(image);
    png.format = PNG_FORMAT_RGB_COLORMAP;
    png.colormap_entries = static_cast<png_uint_32>(m.colour_map.size() / 3);
    ok = png_image_write_to_stdio(&png, f.get(), 0, m.indices.data(), 0, m.colour_map.data());
  } else {
    png.format = PNG_FORMAT_RGBA;
    ok = png_image_write_to_stdio(&png, f.get(), 0, image.rgba.data(), 0, nullptr);
  }
  if (!ok) throw std::runtime_error("cannot write PNG '" + path + "': " + png.message);
}

Image read_png(const std::string& path) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  File f = open(path, "rb");
  if (!png_image_begin_read_from_stdio(&png, f.get()))
    throw std::runtime_error("'" + path + "' is not a PNG: " + png.message);
  png.format = PNG_FORMAT_RGBA;
  Image image;
  image.width = static_cast<int>(png.width);
  image.height = static_cast<int>(png.height);
  image.rgba.resize(PNG_IMAGE_SIZE(png));
  if (!png_image_finish_read(&png, nullptr, image.rgba.data(), 0, nullptr))
    throw std::runtime_error("cannot read PNG '" + path + "': " + png.message);
  return image;
}

}  // namespace cudalab::viewer
