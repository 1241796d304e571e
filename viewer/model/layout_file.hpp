// Where the panels drew, saved next to a screenshot so that the screenshot
// tests can look at the right pixels.
#pragma once

#include <string>

#include "ui_state.hpp"

namespace cudalab::viewer {

void write_layout(const std::string& path, const DrawnLayout& layout);
// Throws std::runtime_error naming the file and the problem.
DrawnLayout read_layout(const std::string& path);

}  // namespace cudalab::viewer
