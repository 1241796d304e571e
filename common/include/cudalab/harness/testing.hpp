// What every lab's autograder shares: one test body run on both backends
// (instantiated as Emu/... and Gpu/..., the GPU instance skipped with the
// reason where there is no GPU), fresh random inputs with the seed in every
// failure, the checks every kernel must pass, and notes for `./lab run`.
//
//   using OnBackend = cudalab::harness::OnBackend<harness::Backend,
//       harness::make_emulator_backend, harness::make_gpu_backend>;
//   class Ex2Launch : public OnBackend {};
//   TEST_P(Ex2Launch, Ex2_AnyShape) { ... backend().call(harness::entry::broadcast_sum, ...) ... }
//   CUDALAB_ON_BOTH_BACKENDS(Ex2Launch);
//
// A test fails when any emulator call it made raised a sanitizer report
// (race, out-of-bounds or uninitialised read, ...), even if the values came
// out right; a test that plants such a bug on purpose says expect_reports().
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "cudalab/compare.hpp"
#include "cudalab/compare_gtest.hpp"
#include "cudalab/harness/observation.hpp"
#include "cudalab/harness/run_log.hpp"
#include "cudalab/random.hpp"

namespace cudalab::harness {

inline const char* backend_word(Where where) {
  return where == Where::kEmulator ? "emulator" : where == Where::kGpu ? "gpu" : "interpreter";
}

inline void PrintTo(Where where, std::ostream* os) { *os << backend_word(where); }

inline std::string backend_param_name(const ::testing::TestParamInfo<Where>& info) {
  return backend_word(info.param);
}

// Base of every lab suite: GetParam() picks the backend, made once per
// test program by the lab's two factories. The optional reference factories
// build the same Backend over solutions/ (cmake/CudalabLab.cmake): reference()
// is then the reference on the same backend, so that a test can grade one
// exercise's part combined with the reference's other parts. A lab whose
// code also builds for the tile interpreter (lab 05) gives its two
// interpreter factories last and instantiates CUDALAB_ON_ALL_BACKENDS.
template <class Backend, std::unique_ptr<Backend> (*MakeEmulator)(),
          std::unique_ptr<Backend> (*MakeGpu)(std::string* why_not),
          std::unique_ptr<Backend> (*MakeReferenceEmulator)() = nullptr,
          std::unique_ptr<Backend> (*MakeReferenceGpu)(std::string* why_not) = nullptr,
          std::unique_ptr<Backend> (*MakeInterpreter)() = nullptr,
          std::unique_ptr<Backend> (*MakeReferenceInterpreter)() = nullptr>
class OnBackend : public ::testing::TestWithParam<Where> {
 protected:
  void SetUp() override {
    take_emulator_reports();  // reports of earlier tests are theirs
    std::string why_not;
    backend_ = made<MakeEmulator, MakeGpu, MakeInterpreter>(&why_not);
    if (backend_ == nullptr) {
      GTEST_SKIP() << "no usable GPU (" << why_not << "); this test runs on the GPU only";
    }
    if constexpr (MakeReferenceEmulator != nullptr && MakeReferenceGpu != nullptr) {
      reference_ =
          made<MakeReferenceEmulator, MakeReferenceGpu, MakeReferenceInterpreter>(&why_not);
    }
  }
  void TearDown() override {
    const std::vector<std::string> reports = take_emulator_reports();
    if (reports.empty() || expect_reports_) return;
    std::string text;
    for (const auto& report : reports) text += "\n" + report;
    ADD_FAILURE() << "the emulator reported " << reports.size()
                  << " problem(s) in your kernels although the values may be right; a GPU "
                     "can give wrong results on another run. First:"
                  << text;
  }

  // The student's code (or whatever CUDALAB_GRADE picks) on this test's backend.
  Backend& backend() { return *backend_; }
  // solutions/ on this test's backend.
  Backend& reference() {
    static_assert(MakeReferenceEmulator != nullptr && MakeReferenceGpu != nullptr,
                  "reference(): give OnBackend the lab's reference factories");
    return *reference_;
  }
  bool on_emulator() const { return GetParam() == Where::kEmulator; }
  bool on_interpreter() const { return GetParam() == Where::kInterpreter; }
  // For tests that plant a bug on purpose: emulator reports do not fail them.
  void expect_reports() { expect_reports_ = true; }

  // Fresh inputs every run; the seed goes into every failure message.
  cudalab::Random rng_ = cudalab::Random::fresh();
  ::testing::ScopedTrace seed_trace_{__FILE__, __LINE__, rng_.seed_note()};

 private:
  // One backend of each kind per test program; nullptr with `why_not` set
  // for a GPU backend where there is no usable GPU.
  template <std::unique_ptr<Backend> (*MakeEmu)(),
            std::unique_ptr<Backend> (*MakeGpuBackend)(std::string*),
            std::unique_ptr<Backend> (*MakeInterp)()>
  Backend* made(std::string* why_not) {
    if (GetParam() == Where::kEmulator) {
      static const std::unique_ptr<Backend> emulator = MakeEmu();
      return emulator.get();
    }
    if (GetParam() == Where::kInterpreter) {
      if constexpr (MakeInterp != nullptr) {
        static const std::unique_ptr<Backend> interpreter = MakeInterp();
        return interpreter.get();
      }
      ADD_FAILURE() << "CUDALAB_ON_ALL_BACKENDS: this suite's OnBackend has no interpreter factory";
      return nullptr;
    }
    static std::string gpu_why_not;
    static const std::unique_ptr<Backend> gpu = MakeGpuBackend(&gpu_why_not);
    *why_not = gpu_why_not;
    return gpu.get();
  }

  Backend* backend_ = nullptr;
  Backend* reference_ = nullptr;
  bool expect_reports_ = false;
};

// Test names carry Emu/Gpu (the ctest labels) and, by convention, Ex<k>_.
#define CUDALAB_ON_BOTH_BACKENDS(Suite)                                                         \
  INSTANTIATE_TEST_SUITE_P(Emu, Suite, ::testing::Values(::cudalab::harness::Where::kEmulator), \
                           ::cudalab::harness::backend_param_name);                             \
  INSTANTIATE_TEST_SUITE_P(Gpu, Suite, ::testing::Values(::cudalab::harness::Where::kGpu),      \
                           ::cudalab::harness::backend_param_name)
// ... and Interp/ for a lab with an interpreter build (test label interp).
#define CUDALAB_ON_ALL_BACKENDS(Suite)                                                 \
  CUDALAB_ON_BOTH_BACKENDS(Suite);                                                     \
  INSTANTIATE_TEST_SUITE_P(Interp, Suite,                                              \
                           ::testing::Values(::cudalab::harness::Where::kInterpreter), \
                           ::cudalab::harness::backend_param_name)
#define CUDALAB_ON_EMULATOR_ONLY(Suite)                                                         \
  INSTANTIATE_TEST_SUITE_P(Emu, Suite, ::testing::Values(::cudalab::harness::Where::kEmulator), \
                           ::cudalab::harness::backend_param_name)

// `text` without the places of the harness's own checks (a CUDA error's "in
// 'cudaGetLastError()' at device_call.hpp:162"): they mean nothing to a
// student, and the reports that follow name the student's line. Places in a
// lab's code stay.
std::string without_harness_places(const std::string& text);

// The call itself must not have failed: no exception from the lab code.
::testing::AssertionResult ran(const Observation& observation);

// Element by element against the reference, within `tolerance` (exact by
// default); a NaN anywhere fails. `shape` gives positions as (row, column).
// `what` names the call, e.g. "broadcast_sum on (3, 17)".
template <class T>
::testing::AssertionResult matches(const std::vector<T>& actual, const std::vector<T>& expected,
                                   const std::vector<std::size_t>& shape, const std::string& what,
                                   cudalab::Tolerance tolerance = {}) {
  cudalab::CompareOptions options;
  options.shape = shape;
  options.max_reported = 5;
  const auto close = cudalab::all_close(actual, expected, tolerance, options);
  if (close) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": wrong result\n" << close.message();
}

// A call that must be refused: it throws std::invalid_argument, or returns
// an Observation that caught one, with `names` in the message, so that a
// student sees which argument is wrong. `what` names the call in a failure.
template <class Call>
::testing::AssertionResult refused(Call&& call, const std::string& names, const std::string& what) {
  std::string message;
  try {
    if constexpr (std::is_same_v<std::invoke_result_t<Call>, Observation>) {
      const Observation observation = call();
      if (observation.failed() && observation.error_type != "std::invalid_argument") {
        return ::testing::AssertionFailure()
               << what << ": threw " << observation.error_type << " (" << observation.error
               << "); expected std::invalid_argument";
      }
      message = observation.error;
    } else {
      call();
    }
    if (message.empty()) {
      return ::testing::AssertionFailure()
             << what
             << ": the call returned normally; it must throw std::invalid_argument naming \""
             << names << "\"";
    }
  } catch (const std::invalid_argument& e) {
    message = e.what();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure()
           << what << ": threw " << e.what() << "; expected std::invalid_argument";
  }
  if (message.find(names) == std::string::npos) {
    return ::testing::AssertionFailure()
           << what << ": the message should name \"" << names << "\", got: " << message;
  }
  return ::testing::AssertionSuccess();
}

// Elements outside the output (guards around it) must keep their bits.
::testing::AssertionResult nothing_written_outside(const Observation& observation,
                                                   const std::string& what);

// Every element of the output written by exactly one thread (emulator
// trace). `shape` gives positions as (row, column); empty for flat indices.
::testing::AssertionResult written_exactly_once(const CoverageSummary& coverage,
                                                const std::vector<std::size_t>& shape,
                                                const std::string& what);

// One line per element not written exactly once, with its writers; "" when
// every element was written once.
std::string coverage_problems(const CoverageSummary& coverage,
                              const std::vector<std::size_t>& shape);

}  // namespace cudalab::harness
