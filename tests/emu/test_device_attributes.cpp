// Device attributes and properties on both backends (device_attributes.hpp):
// every attribute the installed headers declare is answered, and
// cudaGetDeviceProperties agrees with cudaDeviceGetAttribute member by
// member. Emu/... on the emulator, Gpu/... on the GPU (skipped without one);
// DeviceAttributesEmu.* only on the emulator: its two profiles.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "both_backends.hpp"
#include "cudalab/emu/runtime.hpp"
#include "declared_device_attributes.hpp"
#include "device_attributes.hpp"

namespace device_attributes {
namespace {

class DeviceAttributes : public ::emu_tests::OnBothBackends<Kernels, &emulator_kernels,
                                                            &gpu_kernels, &gpu_unavailable_reason> {
};

EMU_TESTS_ON_BOTH_BACKENDS(DeviceAttributes);

TEST_P(DeviceAttributes, EveryDeclaredAttributeIsAnswered) {
  const std::vector<Answer> answers = k().every_declared_attribute();
  ASSERT_EQ(answers.size(), std::size(kDeclaredDeviceAttributes));
  EXPECT_GE(answers.size(), 137u) << "CUDA 13.0's driver_types.h declares 137";
  for (const Answer& a : answers) EXPECT_EQ(a.error, cudaSuccess) << a.name;
}

TEST_P(DeviceAttributes, PropertiesAgreeWithAttributesMemberByMember) {
  for (const Mismatch& m : k().properties_against_attributes()) {
    ADD_FAILURE() << "cudaDeviceProp::" << m.member << " is " << m.property
                  << ", its attribute says " << m.attribute;
  }
}

TEST_P(DeviceAttributes, BadQueries) {
  EXPECT_EQ(k().bad_queries(),
            (std::vector<cudaError_t>{cudaErrorInvalidValue, cudaErrorInvalidDevice,
                                      cudaErrorInvalidValue, cudaErrorInvalidValue}));
}

// The profile in CUDALAB_EMU_PROFILE for one test, restored after.
class ScopedProfile {
 public:
  explicit ScopedProfile(const char* profile) {
    if (const char* before = std::getenv("CUDALAB_EMU_PROFILE")) before_ = before;
    setenv("CUDALAB_EMU_PROFILE", profile, 1);
  }
  ~ScopedProfile() {
    if (before_.empty()) {
      unsetenv("CUDALAB_EMU_PROFILE");
    } else {
      setenv("CUDALAB_EMU_PROFILE", before_.c_str(), 1);
    }
  }

 private:
  std::string before_;
};

int attribute(cudaDeviceAttr attr) {
  int value = -1;
  EXPECT_EQ(cudalab::emu::cudaDeviceGetAttribute(&value, attr, 0), cudaSuccess);
  return value;
}

TEST(DeviceAttributesEmu, AnH100ByDefaultAndAnH200OnRequest) {
  {
    ScopedProfile h100("h100");
    EXPECT_EQ(attribute(cudaDevAttrMemoryClockRate), 2619000);
    EXPECT_EQ(attribute(cudaDevAttrGlobalMemoryBusWidth), 5120);
    EXPECT_EQ(attribute(cudaDevAttrL2CacheSize), 52428800);
  }
  {
    ScopedProfile h200("h200");
    EXPECT_EQ(attribute(cudaDevAttrMemoryClockRate), 3201000);
    EXPECT_EQ(attribute(cudaDevAttrGlobalMemoryBusWidth), 6016);
    EXPECT_EQ(attribute(cudaDevAttrL2CacheSize), 62914560);
    cudaDeviceProp p;
    ASSERT_EQ(cudalab::emu::cudaGetDeviceProperties(&p, 0), cudaSuccess);
    EXPECT_EQ(p.l2CacheSize, 62914560);
    EXPECT_EQ(p.memoryBusWidth, 6016);
  }
  {
    ScopedProfile unknown("a100");  // warns once and describes an H100
    EXPECT_EQ(attribute(cudaDevAttrMemoryClockRate), 2619000);
  }
}

TEST(DeviceAttributesEmu, WhatBothProfilesShare) {
  for (const char* profile : {"h100", "h200"}) {
    ScopedProfile scoped(profile);
    SCOPED_TRACE(profile);
    EXPECT_EQ(attribute(cudaDevAttrComputeCapabilityMajor), 9);
    EXPECT_EQ(attribute(cudaDevAttrClockRate), 1980000);
    EXPECT_EQ(attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin),
              static_cast<int>(cudalab::emu::kMaxDynamicSharedBytes));
    // Thread block clusters launch on the emulator (docs/emulator.md).
    EXPECT_EQ(attribute(cudaDevAttrClusterLaunch), 1);
    // Where the emulator's model differs on purpose (device_attributes.def).
    EXPECT_EQ(attribute(cudaDevAttrConcurrentManagedAccess), 0);
    EXPECT_EQ(attribute(cudaDevAttrPciBusId), 1);
    EXPECT_EQ(attribute(cudaDevAttrMultiProcessorCount),
              static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  }
}

}  // namespace
}  // namespace device_attributes
