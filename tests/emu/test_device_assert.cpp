// Device assert on both backends (device_assert.hpp): a passing assert
// changes nothing; a failing one prints the GPU's line for the failing
// thread, fails the launch with cudaErrorAssert, and the error stays
// (sticky) for every later call on the device; under NDEBUG it is off.
// Emu/... on the emulator, Gpu/... on the GPU (skipped without one).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <regex>
#include <string>
#include <vector>

#include "cudalab/emu/recorder.hpp"
#include "cudalab/emu/runtime.hpp"
#include "cudalab/random.hpp"
#include "device_assert.hpp"

namespace device_assert {
namespace {

enum class Backend { emulator, gpu };

void PrintTo(Backend backend, std::ostream* out) {
  *out << (backend == Backend::gpu ? "gpu" : "emulator");
}

// A failed assert ends the GPU's context: later GPU cases in this process skip.
bool gpu_context_lost = false;

class DeviceAssert : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (GetParam() == Backend::gpu) {
      const std::string why_not = gpu_unavailable_reason();
      if (!why_not.empty()) GTEST_SKIP() << why_not;
      if (gpu_context_lost) GTEST_SKIP() << "an earlier case failed an assert on the GPU";
    }
  }
  void TearDown() override {
    if (GetParam() == Backend::emulator) cudalab::emu::cudaDeviceReset();
  }
  bool gpu() const { return GetParam() == Backend::gpu; }
  const Kernels& k() const { return gpu() ? gpu_kernels() : emulator_kernels(); }
  cudalab::Random rng_ = cudalab::Random::fresh();
};

INSTANTIATE_TEST_SUITE_P(Emu, DeviceAssert, ::testing::Values(Backend::emulator));
INSTANTIATE_TEST_SUITE_P(Gpu, DeviceAssert, ::testing::Values(Backend::gpu));

TEST_P(DeviceAssert, PassingAssertRunsNormally) {
  for (std::size_t n : {std::size_t{1}, std::size_t{97}, std::size_t{1000}}) {
    const std::vector<int> in = rng_.uniform<int>(n, 0, 1 << 20);
    const std::vector<int> out = k().doubled(in, 128);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], 2 * in[i]) << "n " << n << " i " << i;
  }
}

TEST_P(DeviceAssert, OffUnderNdebug) { EXPECT_EQ(k().ndebug(), 1); }

// One failing thread, in the last (partial) block: its line, in the GPU's format.
TEST_P(DeviceAssert, FailureIsStickyCudaErrorAssert) {
  const unsigned block = 96, n = 1000;
  const unsigned bad = n - 1 - static_cast<unsigned>(rng_.uniform<int>(1, 0, 39)[0]);
  const std::vector<int> in = rng_.uniform<int>(n, 0, 1 << 20);
  std::fflush(stderr);
  ::testing::internal::CaptureStderr();
  if (gpu()) gpu_context_lost = true;
  const Failure f = k().doubled_failing(in, block, bad);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(f.synchronize, cudaErrorAssert) << cudaGetErrorName(f.synchronize);
  EXPECT_EQ(f.again, cudaErrorAssert);
  EXPECT_EQ(f.malloc_after, cudaErrorAssert);
  EXPECT_EQ(f.last_error, cudaErrorAssert);
  char where[96];
  std::snprintf(where, sizeof where, "block: [%u,0,0], thread: [%u,0,0]", bad / block, bad % block);
  const std::regex line("(^|\\n)[^\\n]*device_assert\\.cuh:" +
                        std::to_string(doubled_assert_line()) + ": [^\\n]*doubled_kernel[^\\n]*: " +
                        std::regex_replace(where, std::regex("[\\[\\]]"), "\\$&") +
                        " Assertion `in\\[i\\] >= 0` failed\\.\\n");
  EXPECT_TRUE(std::regex_search(err, line)) << err;  // the emulator's report may come first
}

TEST_P(DeviceAssert, ProgrammingGuideExample) {
  std::fflush(stderr);
  ::testing::internal::CaptureStderr();
  if (gpu()) gpu_context_lost = true;
  const cudaError_t e = k().programming_guide();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(e, cudaErrorAssert);
  const std::regex line("(^|\\n)[^\\n]*device_assert\\.cuh:" + std::to_string(guide_assert_line()) +
                        ": void [^\\n]*testAssert\\(\\)?[^\\n]*: block: \\[0,0,0\\], thread: "
                        "\\[0,0,0\\] Assertion `should_be_one` failed\\.\\n");
  EXPECT_TRUE(std::regex_search(err, line)) << err;  // the emulator's report may come first
}

// The emulator's report names the thread, kernel, file and line; after
// cudaDeviceReset the device works again.
TEST(DeviceAssertEmu, ReportAndReset) {
  cudalab::emu::Recording rec;
  std::fflush(stderr);
  ::testing::internal::CaptureStderr();
  std::vector<int> in(300, 1);
  const Failure f = emulator_kernels().doubled_failing(in, 128, 130);
  ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(f.synchronize, cudaErrorAssert);
  ASSERT_FALSE(rec.last().reports.empty());
  const cudalab::emu::Report& r = rec.last().reports.front();
  EXPECT_EQ(r.kind, cudalab::emu::ReportKind::device_assert);
  EXPECT_NE(r.kernel.find("doubled_kernel"), std::string::npos) << r.kernel;
  EXPECT_NE(r.file.find("device_assert.cuh"), std::string::npos) << r.file;
  EXPECT_EQ(r.line, static_cast<unsigned>(doubled_assert_line()));
  EXPECT_EQ(r.where.block.x, 1u);
  EXPECT_EQ(r.where.thread.x, 2u);
  EXPECT_NE(r.message.find("cudaErrorAssert"), std::string::npos) << r.message;
  EXPECT_EQ(cudalab::emu::cudaDeviceReset(), cudaSuccess);
  EXPECT_EQ(cudalab::emu::cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(emulator_kernels().doubled(in, 128), std::vector<int>(300, 2));
}

}  // namespace
}  // namespace device_assert
