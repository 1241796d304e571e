#include "cudalab/harness/run_log.hpp"

#include <utility>

namespace cudalab::harness {
namespace {

// Tests run one at a time on the main thread; the logs need no lock.
std::vector<std::string>& notes() {
  static std::vector<std::string> lines;
  return lines;
}

std::vector<std::string>& emulator_reports() {
  static std::vector<std::string> reports;
  return reports;
}

}  // namespace

void note(std::string text) { notes().push_back(std::move(text)); }

std::vector<std::string> take_notes() { return std::exchange(notes(), {}); }

void add_emulator_reports(const std::vector<std::string>& reports, std::size_t count) {
  if (count == 0) return;
  std::string text = reports.empty() ? std::string("(report text not kept)") : reports.front();
  if (count > 1) text += "(and " + std::to_string(count - 1) + " more reports in this call)\n";
  emulator_reports().push_back(std::move(text));
}

std::vector<std::string> take_emulator_reports() { return std::exchange(emulator_reports(), {}); }

}  // namespace cudalab::harness
