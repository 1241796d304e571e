// What lab 03's tests share: the suite base over both backends (with the
// reference), the schedules a race test tries on the emulator, and checks
// of spans and of the emulator's race reports.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backend.hpp"
#include "cudalab/emu/recorder.hpp"
#include "cudalab/harness/testing.hpp"

namespace lab03 {

using OnBackend =
    cudalab::harness::OnBackend<harness::Backend, harness::make_emulator_backend,
                                harness::make_gpu_backend, harness::make_reference_emulator_backend,
                                harness::make_reference_gpu_backend>;

// The emulator's schedules a race test runs under: its two fixed orders and
// 20 seeds (docs/emulator.md, "The scheduler"). Each failure names its schedule.
inline std::vector<std::string> schedules_to_try() {
  std::vector<std::string> schedules = {"adversarial", "fifo"};
  for (int seed = 1; seed <= 20; ++seed) schedules.push_back(std::to_string(seed * 7919));
  return schedules;
}

// The emulator's current options with another schedule, for
// cudalab::emu::ScopedOptions (the emulator backend runs under them).
inline cudalab::emu::Options with_schedule(const std::string& schedule) {
  cudalab::emu::Options options = cudalab::emu::options();
  options.schedule = schedule;
  return options;
}

// "spin 1 on s [0.000, 0.002] ms"
inline std::string describe(const harness::Span& span) {
  return span.name + " on " + span.row + " [" + std::to_string(span.start_ms) + ", " +
         std::to_string(span.end_ms) + "] ms";
}

inline std::string describe(const std::vector<harness::Span>& spans) {
  std::string text;
  for (const auto& span : spans) text += "\n  " + describe(span);
  return text;
}

// Whether two spans share some time (touching ends do not count), with a
// tolerance for the clocks' rounding.
inline bool overlap(const harness::Span& a, const harness::Span& b, double slack_ms = 1e-6) {
  return a.start_ms < b.end_ms - slack_ms && b.start_ms < a.end_ms - slack_ms;
}

// Every report of the call, one after the other.
inline std::string reports_text(const harness::Observation& observation) {
  std::string text;
  for (const auto& report : observation.reports) text += "\n" + report;
  return text;
}

// A report of a race between streams naming both kernels.
inline ::testing::AssertionResult race_between(const harness::Observation& observation,
                                               const std::string& first,
                                               const std::string& second) {
  for (const auto& report : observation.reports) {
    if (report.find("stream_race") != std::string::npos &&
        report.find(first) != std::string::npos && report.find(second) != std::string::npos) {
      return ::testing::AssertionSuccess();
    }
  }
  return ::testing::AssertionFailure() << "no stream_race report naming " << first << " and "
                                       << second << "; reports:" << reports_text(observation);
}

}  // namespace lab03
