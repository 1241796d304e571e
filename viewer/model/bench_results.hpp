// Reads a `./lab bench` result file (docs/results-format.md) into what the
// timing panel draws.
#pragma once

#include <string>
#include <variant>

#include "timing_model.hpp"

namespace cudalab::viewer {

// The result, or a message naming the file and the problem (missing,
// truncated, another schema) that the viewer shows in its window.
std::variant<BenchResult, std::string> load_bench_result(const std::string& path);

}  // namespace cudalab::viewer
