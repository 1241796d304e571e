#include "timing_model.hpp"

#include <algorithm>

namespace cudalab::viewer {

std::vector<std::string> problems(const BenchResult& result) {
  std::vector<std::string> out;
  for (const Measurement& m : result.versions)
    if (std::find(out.begin(), out.end(), m.problem) == out.end()) out.push_back(m.problem);
  return out;
}

}  // namespace cudalab::viewer
