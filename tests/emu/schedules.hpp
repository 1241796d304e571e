// Helpers of the emulator tests that run the same program under several
// schedules and look for races between streams, and of the tests that
// compare a table of misuse error codes with the GPU's.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdio>
#include <optional>
#include <string>

#include "cudalab/emu/recorder.hpp"

namespace emu_tests {

// The emulator's options with `schedule` ("adversarial", "fifo" or a seed),
// reports expected rather than printed.
inline cudalab::emu::Options quiet_with_schedule(const std::string& schedule) {
  cudalab::emu::Options o = cudalab::emu::options();
  o.schedule = schedule;
  o.print_reports = false;
  return o;
}

// The first race between streams in the recording, if any.
inline std::optional<cudalab::emu::Report> first_stream_race(const cudalab::emu::Recording& rec) {
  for (const cudalab::emu::Report& r : rec.reports()) {
    if (r.kind == cudalab::emu::ReportKind::stream_race) return r;
  }
  return std::nullopt;
}

// `got` and `want` list (what was tried, its error code) in the same order;
// the table of what came back is printed, so a GPU run shows the GPU's
// codes even where they agree. `name`: cudaGetErrorName of the backend.
template <class Errors, class Name>
void expect_same_errors(const Errors& got, const Errors& want, Name name) {
  std::string table;
  for (const auto& [what, e] : got) table += what + ": " + name(e) + "\n";
  std::printf("%s", table.c_str());
  ASSERT_EQ(got.size(), want.size()) << table;
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].first, want[i].first) << table;
    EXPECT_EQ(got[i].second, want[i].second)
        << want[i].first << ": " << name(got[i].second) << ", expected " << name(want[i].second);
  }
}

}  // namespace emu_tests
