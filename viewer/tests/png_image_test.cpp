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

TEST(PngImage, PaletteKeepsFrequentColoursExactly) {
  Image image{300, 1, {}};
  for (int x = 0; x < 300; ++x) {  // over 256 colours; black and white dominate
    const std::uint8_t v = x < 20 ? 0 : x < 40 ? 255 : static_cast<std::uint8_t>(x - 40);
    image.rgba.insert(image.rgba.end(), {v, v, std::uint8_t(x < 40 ? v : 7), 255});
  }
  const auto path = std::filesystem::temp_directory_path() / "cudalab_viewer_palette.png";
  write_png(path.string(), image, true);
  const Image back = read_png(path.string());
  EXPECT_EQ(back.at(0, 0), (Rgba{0, 0, 0, 255}));
  EXPECT_EQ(back.at(30, 0), (Rgba{255, 255, 255, 255}));
  int exact = 0;
  for (int x = 0; x < 300; ++x) exact += back.at(x, 0) == image.at(x, 0);
  EXPECT_GE(exact, 296);  // only pixels of colours beyond the 256 most frequent move
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
