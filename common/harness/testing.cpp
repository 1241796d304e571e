#include "cudalab/harness/testing.hpp"

#include "cudalab/emu/lab_code_place.hpp"

namespace cudalab::harness {

namespace {

// A CUDA error names the check that caught it ("in 'cudaGetLastError()' at
// device_call.hpp:162"); when that check is the harness's, not the student's
// code, the place says nothing to a student: the reports that follow name
// the student's line.
std::string without_harness_place(std::string error) {
  const auto at = error.rfind(" at ");
  if (at == std::string::npos) return error;
  const std::string place = error.substr(at + 4);
  const auto colon = place.rfind(':');
  if (colon == std::string::npos ||
      place.find_first_not_of("0123456789", colon + 1) != std::string::npos) {
    return error;
  }
  if (cudalab::emu::is_lab_code_file(place.substr(0, colon))) return error;
  std::size_t cut = at;
  if (const auto in = error.rfind(" in '", at); in != std::string::npos) cut = in;
  return error.substr(0, cut);
}

}  // namespace

::testing::AssertionResult ran(const Observation& observation) {
  if (!observation.failed()) return ::testing::AssertionSuccess();
  auto failure = ::testing::AssertionFailure()
                 << "the lab code failed with " << observation.error_type << ": "
                 << without_harness_place(observation.error);
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
