#include "model/png_image.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace cudalab::viewer {
namespace {

TEST(PngImage, RoundTrips) {
  Image image{3, 2, {}};
  for (int i = 0; i < 6; ++i) {
    image.rgba.insert(image.rgba.end(), {std::uint8_t(i * 40), std::uint8_t(255 - i), 7, 255});
  }
  const auto path = std::filesystem::temp_directory_path() / "cudalab_viewer_roundtrip.png";
  write_png(path.string(), image);
  const Image back = read_png(path.string());
  EXPECT_EQ(back.width, 3);
  EXPECT_EQ(back.height, 2);
  EXPECT_EQ(back.rgba, image.rgba);
  EXPECT_EQ(back.at(2, 1), (Rgba{200, 250, 7, 255}));
  std::filesystem::remove(path);
}

TEST(PngImage, NamesTheFileItCannotRead) {
  const auto path = std::filesystem::temp_directory_path() / "cudalab_viewer_not_a.png";
  std::ofstream(path) << "hello";
  try {
    read_png(path.string());
    FAIL() << "read a text file as PNG";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace cudalab::viewer
