#include "png_image.hpp"

#include <png.h>

#include <cstdio>
#include <memory>
#include <stdexcept>

namespace cudalab::viewer {
namespace {

using File = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

File open(const std::string& path, const char* mode) {
  File f(std::fopen(path.c_str(), mode), &std::fclose);
  if (!f) throw std::runtime_error("cannot open '" + path + "'");
  return f;
}

}  // namespace

// libpng reports errors by longjmp; the png_image API wraps that and reports
// through its `message` field instead.
void write_png(const std::string& path, const Image& image) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  png.width = static_cast<png_uint_32>(image.width);
  png.height = static_cast<png_uint_32>(image.height);
  png.format = PNG_FORMAT_RGBA;
  File f = open(path, "wb");
  if (!png_image_write_to_stdio(&png, f.get(), 0, image.rgba.data(), 0, nullptr))
    throw std::runtime_error("cannot write PNG '" + path + "': " + png.message);
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
