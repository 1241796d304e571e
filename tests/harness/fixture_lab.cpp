// A deliberately broken "lab" for testing the shared harness itself: one
// exercise per way student code goes wrong (right, crashes in a kernel,
// never ends, right values from a racy kernel, right values from two
// streams that nothing orders, a stack overflow, NaN, an index bug whose
// race reports are its consequence). Emulator only: the host compiler builds
// it against the emulator's shim. The kernels are in
// fixture_labs/99_fixture/kernels.cuh.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "cudalab/check.hpp"
#include "cudalab/harness/device_call.hpp"
#include "cudalab/harness/testing.hpp"
#include "cudalab/kernel.hpp"
#include "fixture_labs/99_fixture/kernels.cuh"

namespace fixture {

namespace {}  // namespace

// The harness's helper the "student's" host code calls to launch a copy
// (declared in kernels.cuh): a report about the work it issues must name the
// student's line that called it, not this file.
[[gnu::noinline]] void launch_copy(float* out, const float* in, int n, cudaStream_t stream) {
  copy_kernel<<<dim3(2), dim3(64), 0, stream>>>(out, in, n);
}

namespace {

class Backend : public cudalab::harness::BackendBase {
 public:
  virtual cudalab::harness::Observation run(const std::string& what, std::vector<float>& out) = 0;
  virtual cudalab::harness::Observation half_index(std::vector<float>& out) = 0;
};

class EmulatorBackend final : public cudalab::harness::BackendFor<Backend> {
 public:
  cudalab::harness::Observation run(const std::string& what, std::vector<float>& out) override {
    const int n = static_cast<int>(out.size());
    cudalab::DeviceBuffer<float> in(std::vector<float>(out.size(), 42.0f));
    return cudalab::harness::call_on_output(out, {}, [&](float* device) {
      if (what == "copy") copy_kernel<<<dim3(2), dim3(64)>>>(device, in.data(), n);
      if (what == "crash") crash_kernel<<<dim3(2), dim3(64)>>>(device, n);
      if (what == "endless") endless_kernel<<<dim3(1), dim3(1)>>>(device);
      if (what == "racy") racy_kernel<<<dim3(1), dim3(64)>>>(device);
      if (what == "two streams") copy_on_two_streams(device, in.data(), n);
      if (what == "deep stack") deep_stack_kernel<<<dim3(1), dim3(1)>>>(device);
      if (what == "nan") nan_kernel<<<dim3(2), dim3(64)>>>(device, n);
    });
  }
  // The index bug, traced: its output and which threads wrote which element.
  cudalab::harness::Observation half_index(std::vector<float>& out) override {
    const int n = static_cast<int>(out.size());
    cudalab::DeviceBuffer<float> in(std::vector<float>(out.size(), 42.0f));
    cudalab::harness::RunOptions options;
    options.trace = true;
    return cudalab::harness::call_on_output(out, options, [&](float* device) {
      half_index_kernel<<<dim3(2), dim3(64)>>>(device, in.data(), n);
    });
  }
};

std::unique_ptr<Backend> make_emulator() { return std::make_unique<EmulatorBackend>(); }
std::unique_ptr<Backend> make_no_gpu(std::string* why_not) {
  *why_not = "the harness fixture runs on the emulator only";
  return nullptr;
}

using OnBackend = cudalab::harness::OnBackend<Backend, make_emulator, make_no_gpu>;
class Fixture : public OnBackend {
 protected:
  void expect_42(const std::string& what) {
    std::vector<float> out(what == "racy" ? 1 : 100, 0.0f);
    const auto run = backend().run(what, out);
    ASSERT_TRUE(cudalab::harness::ran(run)) << what;
    EXPECT_TRUE(cudalab::harness::matches(out, std::vector<float>(out.size(), 42.0f), {}, what));
  }
};

TEST_P(Fixture, Ex1_Right) {
  expect_42("copy");
  cudalab::harness::note("a note from exercise 1");
}
TEST_P(Fixture, Ex2_CrashesInAKernel) { expect_42("crash"); }
TEST_P(Fixture, Ex3_NeverEnds) { expect_42("endless"); }
TEST_P(Fixture, Ex4_RightValuesFromARacyKernel) { expect_42("racy"); }
TEST_P(Fixture, Ex5_RightValuesFromUnorderedStreams) { expect_42("two streams"); }
TEST_P(Fixture, Ex6_OverflowsItsStack) { expect_42("deep stack"); }
TEST_P(Fixture, Ex7_WritesNaN) { expect_42("nan"); }
// The failures in the order a test file gives them: values, then the trace.
TEST_P(Fixture, Ex8_IndexBugValues) {
  std::vector<float> out(128, 0.0f);
  const auto run = backend().half_index(out);
  ASSERT_TRUE(cudalab::harness::ran(run));
  EXPECT_TRUE(cudalab::harness::matches(out, std::vector<float>(out.size(), 42.0f), {}, "half"));
}
TEST_P(Fixture, Ex8_IndexBugCoverage) {
  std::vector<float> out(128, 0.0f);
  const auto run = backend().half_index(out);
  ASSERT_TRUE(cudalab::harness::ran(run));
  ASSERT_TRUE(run.coverage.has_value());
  EXPECT_TRUE(cudalab::harness::written_exactly_once(*run.coverage, {}, "half"));
}

CUDALAB_ON_BOTH_BACKENDS(Fixture);

}  // namespace
}  // namespace fixture
