// Command-line values the viewer parses itself (CLI11 does the rest).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "kernel_run.hpp"

namespace cudalab::viewer {

// "64x100" -> {64, 100}; nullopt for anything else (zero, missing part, junk).
std::optional<std::pair<std::uint64_t, std::uint64_t>> parse_extent(const std::string& text);
// "256" or "32,8" or "4,2,1" -> Dim3; nullopt for zero or junk.
std::optional<Dim3> parse_dim3(const std::string& text);
// "rows=300" -> {"rows", 300}, "bits=0x3f800000" -> {"bits", 1065353216};
// nullopt without a name, an `=` or an integer.
std::optional<std::pair<std::string, std::int64_t>> parse_assignment(const std::string& text);

}  // namespace cudalab::viewer
