// Files for the model tests that read a file: a scratch file with given
// text (a planted bad file), and a test data file's text (to edit a copy).
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace cudalab::viewer {

inline std::string temp_file(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  return path.string();
}

inline std::string file_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace cudalab::viewer
