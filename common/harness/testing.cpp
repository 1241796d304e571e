#include "cudalab/harness/testing.hpp"

#include <regex>

#include "cudalab/emu/lab_code_place.hpp"

namespace cudalab::harness {

std::string without_harness_places(const std::string& text) {
  // " in 'cudaGetLastError()' at device_call.hpp:162", " at device_buffer.hpp:46"
  static const std::regex place(R"(( in '[^'\n]*')? at ([\w./+-]+\.(?:hpp|cpp|cuh|cu|h)):\d+)");
  std::string out;
  auto begin = text.cbegin();
  for (std::sregex_iterator it(text.begin(), text.end(), place), end; it != end; ++it) {
    const auto& match = *it;
    if (cudalab::emu::is_lab_code_file(match[2].str())) continue;
    out.append(begin, match[0].first);
    begin = match[0].second;
  }
  out.append(begin, text.cend());
  return out;
}

::testing::AssertionResult ran(const Observation& observation) {
  if (!observation.failed()) return ::testing::AssertionSuccess();
  auto failure = ::testing::AssertionFailure()
                 << "the lab code failed with " << observation.error_type << ": "
                 << without_harness_places(observation.error);
  for (const auto& report : observation.reports) failure << "\n" << report;
  return failure;
}

::testing::AssertionResult nothing_written_outside(const Observation& observation,
                                                   const std::string& what) {
  if (observation.guard_elements_changed == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << what << ": " << observation.guard_elements_changed
         << " elements just outside the output changed: some thread writes out of bounds";
}

std::string coverage_problems(const CoverageSummary& coverage,
                              const std::vector<std::size_t>& shape) {
  if (coverage.unwritten == 0 && coverage.written_more == 0) return "";
  std::string text = std::to_string(coverage.unwritten) + " of " +
                     std::to_string(coverage.elements) + " elements written 0 times, " +
                     std::to_string(coverage.written_more) + " written 2+ times; first:\n";
  for (const auto& element : coverage.first_wrong) {
    text += "  element " + cudalab::format_index(element.index, shape) + " written " +
            std::to_string(element.writes) + " times" +
            (element.writes == 0 ? std::string() : ": " + element.writers) + "\n";
  }
  return text;
}

::testing::AssertionResult written_exactly_once(const CoverageSummary& coverage,
                                                const std::vector<std::size_t>& shape,
                                                const std::string& what) {
  const std::string problems = coverage_problems(coverage, shape);
  if (problems.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << what << ": every element must be written by exactly one thread, but " << problems;
}

}  // namespace cudalab::harness
