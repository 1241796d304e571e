// Helpers of the emulator tests: random inputs, device buffers on the
// emulated runtime and quiet options for tests that plant bugs.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "cudalab/device_buffer.hpp"
#include "cudalab/kernel.hpp"
#include "cudalab/random.hpp"

namespace emu_tests {

// Device memory on the emulated runtime (the emulator sits behind the CUDA
// names DeviceBuffer calls).
using cudalab::DeviceBuffer;

// Fresh inputs each run; CUDALAB_SEED=<seed> repeats a run's inputs.
inline cudalab::Random& rng() {
  static cudalab::Random random = cudalab::Random::fresh();
  return random;
}

inline std::vector<int> random_ints(std::size_t n, int lo, int hi) {
  return rng().uniform(n, lo, hi);
}

inline std::vector<float> random_floats(std::size_t n, float lo = -1.0f, float hi = 1.0f) {
  return rng().uniform(n, lo, hi);
}

// Options for a test that plants a bug: reports are expected, not printed.
inline cudalab::emu::Options quiet() {
  cudalab::emu::Options o = cudalab::emu::options();
  o.print_reports = false;
  return o;
}

inline bool has_report(const cudalab::emu::Recording& rec, cudalab::emu::ReportKind kind) {
  for (const auto& r : rec.reports()) {
    if (r.kind == kind) return true;
  }
  return false;
}

inline const cudalab::emu::Report* first_report(const cudalab::emu::Recording& rec,
                                                cudalab::emu::ReportKind kind) {
  static cudalab::emu::Report found;
  for (const auto& r : rec.reports()) {
    if (r.kind == kind) {
      found = r;
      return &found;
    }
  }
  return nullptr;
}

}  // namespace emu_tests
