// What every lab 01 test file shares: the backend parameter (one test body,
// instantiated as Emu/... and Gpu/...), fresh random inputs with the seed in
// every failure, and the checks with messages that say what is wrong.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "backend.hpp"
#include "cudalab/compare.hpp"
#include "cudalab/compare_gtest.hpp"
#include "cudalab/random.hpp"
#include "reference.hpp"

namespace lab01::testing {

using harness::Backend;
using harness::Observation;
using harness::RunOptions;
using harness::Shape;

enum class Where { kEmulator, kGpu };

// The backend of each kind, made once per test program.
inline Backend* backend_or_skip_reason(Where where, std::string& skip_reason) {
  if (where == Where::kEmulator) {
    static const std::unique_ptr<Backend> emulator = harness::make_emulator_backend();
    return emulator.get();
  }
  static std::string why_not;
  static const std::unique_ptr<Backend> gpu = harness::make_gpu_backend(&why_not);
  skip_reason = "no usable GPU (" + why_not + "); this test runs on the GPU only";
  return gpu.get();
}

// Base of every lab 01 suite: GetParam() picks the backend.
class OnBackend : public ::testing::TestWithParam<Where> {
 protected:
  void SetUp() override {
    std::string skip_reason;
    backend_ = backend_or_skip_reason(GetParam(), skip_reason);
    if (backend_ == nullptr) GTEST_SKIP() << skip_reason;
  }

  Backend& backend() { return *backend_; }
  bool on_emulator() const { return GetParam() == Where::kEmulator; }

  // Fresh inputs every run; the seed goes into every failure message.
  cudalab::Random rng_ = cudalab::Random::fresh();
  ::testing::ScopedTrace seed_trace_{__FILE__, __LINE__, rng_.seed_note()};

 private:
  Backend* backend_ = nullptr;
};

inline void PrintTo(Where where, std::ostream* os) {
  *os << (where == Where::kEmulator ? "emulator" : "gpu");
}

inline std::string backend_name(const ::testing::TestParamInfo<Where>& info) {
  return info.param == Where::kEmulator ? "emulator" : "gpu";
}

// Suites whose tests run on both backends, and suites that need the
// emulator's trace. Test names carry Emu/Gpu (ctest labels) and Ex<k>_.
#define LAB01_ON_BOTH_BACKENDS(Suite)                                                         \
  INSTANTIATE_TEST_SUITE_P(Emu, Suite, ::testing::Values(::lab01::testing::Where::kEmulator), \
                           ::lab01::testing::backend_name);                                   \
  INSTANTIATE_TEST_SUITE_P(Gpu, Suite, ::testing::Values(::lab01::testing::Where::kGpu),      \
                           ::lab01::testing::backend_name)
#define LAB01_ON_EMULATOR_ONLY(Suite)                                                         \
  INSTANTIATE_TEST_SUITE_P(Emu, Suite, ::testing::Values(::lab01::testing::Where::kEmulator), \
                           ::lab01::testing::backend_name)

// The call itself must not have failed: no exception from the lab code.
inline ::testing::AssertionResult ran(const Observation& observation) {
  if (!observation.failed()) return ::testing::AssertionSuccess();
  auto failure = ::testing::AssertionFailure()
                 << "the lab code failed with " << observation.error_type << ": "
                 << observation.error;
  for (const auto& report : observation.reports) failure << "\n" << report;
  return failure;
}

// Exact comparison: one fp32 (or fp16) add per element has one right answer.
// A NaN anywhere fails. `what` names the call, e.g. "broadcast_sum on (3, 17)".
template <class T>
::testing::AssertionResult matches(const std::vector<T>& actual, const std::vector<T>& expected,
                                   const std::vector<std::size_t>& shape, const std::string& what) {
  cudalab::CompareOptions options;
  options.shape = shape;
  options.max_reported = 5;
  const auto comparison = cudalab::compare(actual, expected, {}, options);
  if (comparison.ok) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": wrong result\n" << comparison.to_string();
}

// fp16 results as floats, so compare() reports readable values.
inline std::vector<float> half_values(const std::vector<std::uint16_t>& bits) {
  std::vector<float> values(bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i) values[i] = harness::half_bits_to_float(bits[i]);
  return values;
}

// Elements outside the output (guards around it) must keep their bits.
inline ::testing::AssertionResult nothing_written_outside(const Observation& observation,
                                                          const std::string& what) {
  if (observation.guard_elements_changed == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << what << ": " << observation.guard_elements_changed
         << " elements just outside the output changed: some thread writes out of bounds";
}

// Every element of the output written by exactly one thread (emulator trace).
// y: the row length for (row, column) positions; 0 for flat indices.
inline ::testing::AssertionResult written_exactly_once(const harness::CoverageSummary& coverage,
                                                       int y, const std::string& what) {
  const std::string problems = harness::coverage_problems(coverage, y);
  if (problems.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << what << ": every element must be written by exactly one thread, but " << problems;
}

// What every broadcast_sum variant must get right once it ran: the values of
// the (x, y) matrix `a`, no write outside it, and on the emulator each
// element written by exactly one thread.
inline void expect_broadcast_sum_correct(const Observation& run, const std::vector<float>& a,
                                         const std::vector<float>& expected, int x, int y,
                                         const std::string& what) {
  EXPECT_TRUE(
      matches(a, expected, {static_cast<std::size_t>(x), static_cast<std::size_t>(y)}, what));
  EXPECT_TRUE(nothing_written_outside(run, what));
  if (run.coverage) {
    EXPECT_TRUE(written_exactly_once(*run.coverage, y, what));
  }
}

inline std::string shape_text(int x, int y) {
  return "(" + std::to_string(x) + ", " + std::to_string(y) + ")";
}

}  // namespace lab01::testing
