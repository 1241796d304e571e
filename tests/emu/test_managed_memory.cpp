// Managed memory on both backends (managed_memory.hpp): written by the host,
// read and written by kernels, read by the host after synchronising, with
// fresh random inputs and awkward sizes; attributes, flags and the prefetch
// and advice calls' errors as the GPU gives them. Emu/... on the emulator,
// Gpu/... on the GPU (skipped without one); ManagedMemoryEmu.* only on the
// emulator, which is strict where an H200 is not (docs/emulator.md).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "both_backends.hpp"
#include "cudalab/emu/recorder.hpp"
#include "cudalab/random.hpp"
#include "managed_memory.hpp"

namespace managed_memory {
namespace {

class ManagedMemory : public ::emu_tests::OnBothBackends<Kernels, &emulator_kernels, &gpu_kernels,
                                                         &gpu_unavailable_reason> {};

EMU_TESTS_ON_BOTH_BACKENDS(ManagedMemory);

void expect_triple_plus_one(const std::vector<int>& x, const std::vector<int>& y) {
  ASSERT_EQ(y.size(), x.size());
  for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[i], 3 * x[i] + 1) << "i " << i;
}

TEST_P(ManagedMemory, HostKernelHostRoundTrip) {
  for (std::size_t n : {std::size_t{1}, std::size_t{127}, std::size_t{1021}, std::size_t{4099}}) {
    const std::vector<int> x = rng_.uniform<int>(n, -(1 << 20), 1 << 20);
    for (unsigned flags : {unsigned{cudaMemAttachGlobal}, unsigned{cudaMemAttachHost}}) {
      SCOPED_TRACE("n " + std::to_string(n) + " flags " + std::to_string(flags));
      expect_triple_plus_one(x, k().triple_plus_one(x, 96, flags));
    }
  }
}

TEST_P(ManagedMemory, PrefetchAndAdviceOnAStream) {
  const std::vector<int> x = rng_.uniform<int>(2003, -1000, 1000);
  expect_triple_plus_one(x, k().with_prefetch(x, 128));
}

TEST_P(ManagedMemory, PointerAndDeviceAttributes) {
  const Attributes a = k().attributes();
  EXPECT_EQ(a.error, cudaSuccess);
  EXPECT_EQ(a.type, cudaMemoryTypeManaged);
  EXPECT_EQ(a.device, 0);
  EXPECT_TRUE(a.device_is_host_pointer);
  EXPECT_EQ(a.managed_memory, 1);
  EXPECT_EQ(a.prop_managed, 1);
  // An H200 under Linux lets the host in while kernels run; the emulator
  // models a device that does not.
  EXPECT_EQ(a.concurrent_managed_access, gpu() ? 1 : 0);
  EXPECT_EQ(a.prop_concurrent, a.concurrent_managed_access);
}

TEST_P(ManagedMemory, BadFlagsAndSize) {
  EXPECT_EQ(k().malloc_error(64, cudaMemAttachGlobal), cudaSuccess);
  EXPECT_EQ(k().malloc_error(64, cudaMemAttachHost), cudaSuccess);
  EXPECT_EQ(k().malloc_error(64, 0), cudaErrorInvalidValue);
  EXPECT_EQ(k().malloc_error(64, cudaMemAttachGlobal | cudaMemAttachHost), cudaErrorInvalidValue);
  EXPECT_EQ(k().malloc_error(64, 4), cudaErrorInvalidValue);
  EXPECT_EQ(k().malloc_error(0, cudaMemAttachGlobal), cudaSuccess) << "0 bytes";
}

TEST_P(ManagedMemory, BadPrefetchAndAdvice) {
  const std::vector<cudaError_t> e = k().bad_calls();
  ASSERT_EQ(e.size(), 5u);
  EXPECT_EQ(e[0], cudaErrorInvalidValue) << "prefetch flags 1";
  EXPECT_EQ(e[1], cudaErrorInvalidValue) << "prefetch of cudaMalloc memory";
  EXPECT_EQ(e[2], cudaErrorInvalidDevice) << "prefetch to device 99";
  EXPECT_EQ(e[3], cudaErrorInvalidValue) << "advice 99";
  EXPECT_EQ(e[4], cudaErrorInvalidValue) << "preferred location device 99";
}

TEST_P(ManagedMemory, ProgrammingGuideExample) {
  std::fflush(stdout);
  ::testing::internal::CaptureStdout();
  k().programming_guide();
  const std::string out = ::testing::internal::GetCapturedStdout();
  std::string want;
  for (int i = 0; i < 1000; ++i)
    want += std::to_string(i) + ": A+B = " + std::to_string(110 + i) + "\n";
  EXPECT_EQ(out, want);
}

TEST(ManagedMemoryEmu, HostReadWhileKernelOutstandingIsReported) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const char* message =
      "Host read of managed memory at 0x[0-9a-f]+ in managed allocation 0x[0-9a-f]+ \\(4000 "
      "bytes, cudaMallocManaged\\) while kernel .*triple_plus_one_kernel.* launched on device 0 "
      "may still use it.*synchronise first";
  EXPECT_DEATH(emulator_read_while_kernel_outstanding(false), message);
  EXPECT_DEATH(emulator_read_while_kernel_outstanding(true), message);
}

TEST(ManagedMemoryEmu, HostAttachedMemoryStaysReachable) {
  EXPECT_EQ(emulator_host_attached_while_kernel_outstanding(), 42);
}

// Kernel accesses are traced as global memory's: load requests counted, nothing reported.
TEST(ManagedMemoryEmu, KernelAccessesAreChecked) {
  cudalab::emu::Recording rec;
  const std::vector<int> x(33, 5);
  expect_triple_plus_one(x, emulator_kernels().triple_plus_one(x, 32, cudaMemAttachGlobal));
  ASSERT_FALSE(rec.launches().empty());
  EXPECT_TRUE(rec.clean()) << rec.reports_text();
  EXPECT_GT(rec.last().coalescing.loads.requests, 0u);
}

}  // namespace
}  // namespace managed_memory
