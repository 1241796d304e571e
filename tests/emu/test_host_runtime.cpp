// Device flags, registered host memory and profiler ranges on both backends
// (host_runtime.hpp), with the GPU's error codes for misuse. Emu/... on the
// emulator, Gpu/... on the GPU (skipped without one).
#include <gtest/gtest.h>

#include <vector>

#include "both_backends.hpp"
#include "host_runtime.hpp"

namespace host_runtime {
namespace {

class HostRuntime : public ::emu_tests::OnBothBackends<Kernels, &emulator_kernels, &gpu_kernels,
                                                       &gpu_unavailable_reason> {};

EMU_TESTS_ON_BOTH_BACKENDS(HostRuntime);

TEST_P(HostRuntime, RegisteredMemoryRoundTripOnAStream) {
  for (std::size_t n : {std::size_t{1}, std::size_t{1021}, std::size_t{4099}}) {
    SCOPED_TRACE("n " + std::to_string(n));
    const std::vector<int> x = rng_.uniform<int>(n, -(1 << 20), 1 << 20);
    const Registered r = k().registered_round_trip(x);
    ASSERT_EQ(r.result.size(), n);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(r.result[i], x[i] + 1) << "i " << i;
    EXPECT_EQ(r.type, cudaMemoryTypeHost);
    EXPECT_TRUE(r.device_pointer_is_host_pointer);
  }
}

// The codes an H100 answered (CUDA 13.0, 2026-12-07): cudaMallocHost's memory
// is refused as an invalid value, not as already registered.
TEST_P(HostRuntime, RegistrationMisuseGetsTheGpusErrors) {
  EXPECT_EQ(k().registration_errors(),
            (std::vector<cudaError_t>{
                cudaErrorHostMemoryAlreadyRegistered, cudaErrorHostMemoryAlreadyRegistered,
                cudaErrorHostMemoryNotRegistered, cudaErrorHostMemoryNotRegistered,
                cudaErrorInvalidValue, cudaErrorInvalidValue, cudaErrorInvalidValue,
                cudaErrorInvalidValue, cudaErrorInvalidValue, cudaErrorInvalidValue}));
}

TEST_P(HostRuntime, DeviceFlags) {
  const DeviceFlags f = k().device_flags();
  EXPECT_EQ(f.initial & cudaDeviceMapHost, unsigned{cudaDeviceMapHost});
  EXPECT_EQ(f.after_blocking_sync, unsigned{cudaDeviceScheduleBlockingSync | cudaDeviceMapHost});
  EXPECT_EQ(f.two_schedules, cudaErrorInvalidValue);
  EXPECT_EQ(f.unknown_bit, cudaErrorInvalidValue);
}

TEST_P(HostRuntime, ProfilerRangeAroundAKernel) {
  EXPECT_EQ(k().profiler_range(), (std::vector<long long>{cudaSuccess, cudaSuccess, 1000}));
}

}  // namespace
}  // namespace host_runtime
