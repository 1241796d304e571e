// The emulator's model of several devices checked against two GPUs: each
// probe of device_probes.cuh runs on the emulator with two virtual devices
// (Emu/..., label emu) and on two GPUs (Gpu/..., label gpu; skipped with the
// reason when there are fewer), and both must observe the same verdict. The
// answers of two H200s are tabled in docs/emulator.md ("Peer access").
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <ostream>
#include <string>

#include "device_probes.hpp"

namespace device_probes {
namespace {

enum class Backend { emulator, gpu };

void PrintTo(Backend backend, std::ostream* out) {
  *out << (backend == Backend::gpu ? "gpu" : "emulator");
}

// A GPU fault ends the process's CUDA context: every later GPU probe in the
// same process would fail for that reason alone. (ctest runs each test in a
// process of its own; this matters when the program runs them all.)
bool gpu_context_faulted = false;

// The emulator models a copy between two devices at this rate.
constexpr double kModelledPeerGigabytesPerSecond = 400.0;

class DeviceProbes : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (!on_gpu()) return;
    const std::string why_not = gpu_unavailable_reason();
    if (!why_not.empty()) GTEST_SKIP() << why_not;
    if (gpu_context_faulted) {
      GTEST_SKIP() << "an earlier probe in this process faulted the GPU's context";
    }
  }

  bool on_gpu() const { return GetParam() == Backend::gpu; }

  Observation observe(Probe probe) const {
    Observation seen = on_gpu() ? observe_on_gpu(probe) : observe_on_emulator(probe);
    std::printf("  observed: %s%s%s\n", seen.verdict.c_str(), seen.note.empty() ? "" : "; ",
                seen.note.c_str());
    return seen;
  }

  // On the emulator, the expected reports too: `races` stream races (naming
  // both operations when there is one) and no peer-access errors. Where the
  // emulator is known to differ from the GPU, its side is skipped with the
  // difference (`emulator_differs`), and the GPU's verdict stays the test.
  void expect_verdict(Probe probe, const std::string& expected, int races = 0,
                      const char* emulator_differs = nullptr) const {
    if (!on_gpu() && emulator_differs != nullptr) {
      GTEST_SKIP() << "emulator differs: " << emulator_differs << " (lead to fix)";
    }
    const Observation seen = observe(probe);
    EXPECT_EQ(seen.verdict, expected);
    if (on_gpu()) return;
    EXPECT_TRUE(seen.peer_access_errors.empty()) << seen.peer_access_errors.front();
    ASSERT_EQ(seen.stream_races.size(), static_cast<std::size_t>(races))
        << (seen.stream_races.empty() ? "" : seen.stream_races.front());
    if (races == 0) return;
    const std::string& race = seen.stream_races.front();
    EXPECT_NE(race.find("late_fill_kernel"), std::string::npos) << race;
    EXPECT_NE(race.find("cudaMemcpyPeerAsync"), std::string::npos) << race;
  }
};

INSTANTIATE_TEST_SUITE_P(Emu, DeviceProbes, ::testing::Values(Backend::emulator));
INSTANTIATE_TEST_SUITE_P(Gpu, DeviceProbes, ::testing::Values(Backend::gpu));

// ---- Peer access ----------------------------------------------------------------------

TEST_P(DeviceProbes, TwoDevicesThatCanAccessEachOtherButNotThemselves) {
  expect_verdict(Probe::peer_access_capabilities,
                 "at least 2 devices; cudaDeviceCanAccessPeer 0->1: 1, 1->0: 1, 0->0: 0");
}

TEST_P(DeviceProbes, PeerAccessIsEnabledOnceAndDisabledOnlyWhenEnabled) {
  expect_verdict(Probe::enable_and_disable_peer_access,
                 "enable 0->1: cudaSuccess, again: cudaErrorPeerAccessAlreadyEnabled; "
                 "enable 0->0: cudaErrorPeerAccessUnsupported; "
                 "disable 1->0 (never enabled): cudaErrorPeerAccessNotEnabled; "
                 "disable 0->1: cudaSuccess");
}

TEST_P(DeviceProbes, AKernelReadsAnotherDevicesMemoryWithPeerAccess) {
  expect_verdict(Probe::kernel_reads_peer_memory_with_peer_access,
                 "cudaDeviceSynchronize: cudaSuccess, read device 1's values");
}

// ---- Ordering across devices --------------------------------------------------------

TEST_P(DeviceProbes, APeerCopyOnAnotherDevicesStreamIsNotOrderedAfterALateFill) {
  expect_verdict(Probe::peer_copy_after_a_late_fill_without_an_event, "not ordered", 1);
}

TEST_P(DeviceProbes, AnEventOfDeviceZeroOrdersAPeerCopyOnAStreamOfDeviceOne) {
  expect_verdict(Probe::peer_copy_after_a_late_fill_with_an_event, "ordered");
}

TEST_P(DeviceProbes, DeviceSynchronizeWaitsForTheCurrentDeviceOnly) {
  expect_verdict(Probe::device_synchronize_waits_for_its_own_device_only,
                 "device 1's cudaDeviceSynchronize: did not wait; device 0's: waited");
}

// The CUDA Programming Guide says such a launch fails; on the H200s (CUDA
// 13.0, driver 580) it succeeded and the kernel ran.
TEST_P(DeviceProbes, AKernelLaunchedIntoAnotherDevicesStreamRuns) {
  expect_verdict(Probe::launch_into_a_stream_of_another_device,
                 "the launch: cudaSuccess, the kernel ran");
}

// ---- Bandwidth (a figure, not a verdict) ------------------------------------------------

TEST_P(DeviceProbes, PeerCopyBandwidth) {
  const Observation seen = observe(Probe::peer_copy_bandwidth);
  ASSERT_GT(seen.gigabytes_per_second, 0.0);
  const double off = seen.gigabytes_per_second / kModelledPeerGigabytesPerSecond - 1.0;
  std::printf("  %.1f GB/s: the emulator's %.0f GB/s is %+.0f%% off it\n",
              seen.gigabytes_per_second, kModelledPeerGigabytesPerSecond,
              -100.0 * off / (1.0 + off));
  if (!on_gpu()) {
    // 1 us of latency per copy on top of the rate.
    EXPECT_NEAR(seen.gigabytes_per_second, kModelledPeerGigabytesPerSecond, 5.0);
  }
}

// ---- The fault, last: it ends the GPU's context -------------------------------------------

class DeviceProbesFault : public DeviceProbes {};

INSTANTIATE_TEST_SUITE_P(Emu, DeviceProbesFault, ::testing::Values(Backend::emulator));
INSTANTIATE_TEST_SUITE_P(Gpu, DeviceProbesFault, ::testing::Values(Backend::gpu));

// The GPU faults at the access; the emulator stops the access, reports it
// and returns the fault at the next synchronisation.
TEST_P(DeviceProbesFault, AKernelReadingAnotherDevicesMemoryWithoutPeerAccessFaults) {
  if (on_gpu()) gpu_context_faulted = true;
  const Observation seen = observe(Probe::kernel_reads_peer_memory_without_peer_access);
  EXPECT_EQ(seen.verdict, "cudaDeviceSynchronize: cudaErrorIllegalAddress");
  if (on_gpu()) return;
  ASSERT_EQ(seen.peer_access_errors.size(), 1u);
  const std::string& report = seen.peer_access_errors.front();
  EXPECT_NE(report.find("peer access from device 0 to device 1 is not enabled"), std::string::npos)
      << report;
  EXPECT_NE(report.find("copy_kernel"), std::string::npos) << report;
}

// A fault is a sticky error on the GPU: every later call returns it.
TEST_P(DeviceProbesFault, APeerAccessFaultIsSticky) {
  if (!on_gpu()) {
    GTEST_SKIP() << "emulator differs: the fault is returned once (then cudaDeviceSynchronize "
                    "and cudaMalloc succeed, and cudaGetLastError returns it once more); on the "
                    "H200s it is sticky: every later call returns cudaErrorIllegalAddress "
                    "(lead to fix)";
  }
  gpu_context_faulted = true;
  EXPECT_EQ(observe(Probe::a_peer_access_fault_is_sticky).verdict,
            "after cudaErrorIllegalAddress: cudaDeviceSynchronize again: "
            "cudaErrorIllegalAddress, cudaGetLastError: cudaErrorIllegalAddress, "
            "cudaMalloc: cudaErrorIllegalAddress");
}

}  // namespace
}  // namespace device_probes
