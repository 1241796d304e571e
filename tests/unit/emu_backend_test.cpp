// libcudalab's CUDA-calling headers (check.hpp, device_buffer.hpp,
// event_timer.hpp, device_info.hpp) on the emulator backend: the same code
// the GPU runs, here with the emulator behind CUDA's names.
#include <gtest/gtest.h>

#include <cstring>
#include <utility>
#include <vector>

#include "cudalab/check.hpp"
#include "cudalab/compare_gtest.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/device_info.hpp"
#include "cudalab/event_timer.hpp"
#include "cudalab/kernel.hpp"
#include "cudalab/random.hpp"

namespace {

__global__ void add_one(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] + 1.0f;
}

TEST(EmuDeviceBuffer, RoundTripThroughAKernel) {
  auto rng = cudalab::Random::fresh();
  SCOPED_TRACE(rng.seed_note());
  const int n = 1031;  // a prime: the last block is partly idle
  const std::vector<float> host = rng.uniform(n, -1.0f, 1.0f);
  cudalab::DeviceBuffer<float> x(host);
  EXPECT_EQ(x.size(), static_cast<std::size_t>(n));
  EXPECT_EQ(x.bytes(), n * sizeof(float));
  EXPECT_FALSE(x.empty());
  add_one<<<dim3((n + 127) / 128), dim3(128)>>>(x.data(), n);
  CUDA_CHECK_LAUNCH();
  std::vector<float> expected = host;
  for (float& v : expected) v += 1.0f;
  EXPECT_TRUE(cudalab::all_close(x.copy_to_host(), expected, {}));
}

TEST(EmuDeviceBuffer, CopiesIntoCallerMemoryBothWays) {
  const std::vector<int> up{1, 2, 3, 4, 5};
  cudalab::DeviceBuffer<int> x(up.size());
  x.copy_from_host(up);
  std::vector<int> down(5, 0);
  x.copy_to_host(std::span<int>(down));
  EXPECT_EQ(down, up);
}

TEST(EmuDeviceBuffer, FillBytes) {
  cudalab::DeviceBuffer<unsigned> x(7);
  x.fill_bytes(0xAB);
  EXPECT_EQ(x.copy_to_host(), std::vector<unsigned>(7, 0xABABABABu));
  cudalab::DeviceBuffer<float> y(3);
  y.fill_bytes(0);
  EXPECT_EQ(y.copy_to_host(), std::vector<float>(3, 0.0f));
}

TEST(EmuDeviceBuffer, MoveTransfersOwnership) {
  cudalab::DeviceBuffer<double> a(std::vector<double>{1.5, 2.5});
  const double* memory = a.data();
  cudalab::DeviceBuffer<double> b(std::move(a));
  EXPECT_EQ(b.data(), memory);
  EXPECT_EQ(b.size(), 2u);
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): moved-from state is specified
  EXPECT_TRUE(a.empty());
  cudalab::DeviceBuffer<double> c(5);
  c = std::move(b);  // frees c's old allocation
  EXPECT_EQ(c.data(), memory);
  EXPECT_EQ(c.copy_to_host(), (std::vector<double>{1.5, 2.5}));
  EXPECT_TRUE(b.empty());  // NOLINT(bugprone-use-after-move)
}

TEST(EmuDeviceBuffer, SizeMismatchThrowsAndChangesNothing) {
  cudalab::DeviceBuffer<float> x(std::vector<float>{1, 2, 3});
  const std::vector<float> four{9, 9, 9, 9};
  try {
    x.copy_from_host(four);
    FAIL() << "copied 4 elements into a 3-element buffer";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(),
                 "DeviceBuffer::copy_from_host: the device buffer has 3 elements but the host "
                 "side has 4");
  }
  std::vector<float> two{7, 7};
  EXPECT_THROW(x.copy_to_host(std::span<float>(two)), std::invalid_argument);
  EXPECT_EQ(two, (std::vector<float>{7, 7}));
  EXPECT_EQ(x.copy_to_host(), (std::vector<float>{1, 2, 3}));
}

TEST(EmuDeviceBuffer, ZeroSizeAllocatesNothing) {
  cudalab::DeviceBuffer<float> x(0);
  EXPECT_TRUE(x.empty());
  EXPECT_EQ(x.data(), nullptr);
  EXPECT_EQ(x.bytes(), 0u);
  x.fill_bytes(0);
  x.copy_from_host(std::vector<float>{});
  EXPECT_TRUE(x.copy_to_host().empty());
  cudalab::DeviceBuffer<float> from_empty(std::vector<float>{});
  EXPECT_TRUE(from_empty.empty());
}

TEST(EmuCheck, FailedCallThrowsWithTheEmulatorsError) {
  void* p = nullptr;
  const int line = __LINE__ + 2;
  try {
    CUDA_CHECK(cudaMalloc(&p, std::size_t{1} << 62));
    FAIL() << "a 4 EiB allocation succeeded";
  } catch (const cudalab::CudaError& error) {
    EXPECT_EQ(error.library(), "CUDA");
    EXPECT_EQ(error.code(), static_cast<int>(cudaErrorMemoryAllocation));
    EXPECT_EQ(error.code_name(), "cudaErrorMemoryAllocation");
    EXPECT_EQ(error.expression(), "cudaMalloc(&p, std::size_t{1} << 62)");
    EXPECT_EQ(error.line(), line);
    EXPECT_EQ(std::string(error.what()),
              "CUDA error cudaErrorMemoryAllocation (" + error.description() +
                  ") in 'cudaMalloc(&p, std::size_t{1} << 62)' at emu_backend_test.cpp:" +
                  std::to_string(line));
  }
  EXPECT_THROW(cudalab::DeviceBuffer<double>(std::size_t{1} << 60), cudalab::CudaError);
  // The exception reported the failure; the next launch check must not.
  EXPECT_NO_THROW(CUDA_CHECK_LAUNCH());
}

TEST(EmuCheck, BadLaunchConfigurationIsReportedAtTheLaunch) {
  cudalab::DeviceBuffer<float> x(8);
  add_one<<<dim3(1), dim3(2048)>>>(x.data(), 8);  // 2048 > 1024 threads per block
  const int line = __LINE__ + 2;
  try {
    CUDA_CHECK_LAUNCH();
    FAIL() << "a 2048-thread block was accepted";
  } catch (const cudalab::CudaError& error) {
    // What the GPU says: cudaErrorInvalidValue from CUDA 13 on,
    // cudaErrorInvalidConfiguration before.
    EXPECT_TRUE(error.code_name() == "cudaErrorInvalidValue" ||
                error.code_name() == "cudaErrorInvalidConfiguration")
        << error.what();
    EXPECT_EQ(std::string(error.what()),
              "CUDA error " + error.code_name() + " (" + error.description() +
                  ") in 'cudaGetLastError()' at emu_backend_test.cpp:" + std::to_string(line));
  }
  EXPECT_NO_THROW(CUDA_CHECK_LAUNCH());  // reported once, then cleared
}

TEST(EmuEventTimer, MeasuresHostTimeAroundSynchronisedWork) {
  cudalab::DeviceBuffer<float> x(std::vector<float>(4096, 0.0f));
  cudalab::EventTimer timer;
  timer.start();
  add_one<<<dim3(32), dim3(128)>>>(x.data(), 4096);
  timer.stop();
  EXPECT_GT(timer.elapsed_ms(), 0.0);
  int runs = 0;
  const double ms = cudalab::time_median_ms(
      [&] {
        ++runs;
        add_one<<<dim3(32), dim3(128)>>>(x.data(), 4096);
      },
      2, 3);
  EXPECT_EQ(runs, 5);
  EXPECT_GT(ms, 0.0);
  EXPECT_EQ(x.copy_to_host(), std::vector<float>(4096, 6.0f));
  EXPECT_THROW(cudalab::time_median_ms([] {}, 0, 0), std::invalid_argument);
}

TEST(Median, OddEvenAndEmpty) {
  EXPECT_EQ(cudalab::median({3.0, 1.0, 2.0}), 2.0);
  EXPECT_EQ(cudalab::median({4.0, 1.0, 3.0, 2.0}), 2.5);
  EXPECT_EQ(cudalab::median({5.0}), 5.0);
  EXPECT_THROW(cudalab::median({}), std::invalid_argument);
}

TEST(EmuDeviceInfo, TheEmulatorDescribesItself) {
  const cudalab::GpuAvailability gpus = cudalab::probe_gpus();
  ASSERT_GT(gpus.count, 0) << gpus.reason;
  const cudalab::DeviceFacts facts = cudalab::query_device();
  EXPECT_EQ(facts.name, cudalab::emu::kDeviceName);
  EXPECT_GT(facts.sm_count, 0);  // one per host core
  // What an H100 and an H200 share (common/emu/device_attributes.def).
  EXPECT_EQ(facts.compute_capability(), "9.0");
  EXPECT_EQ(facts.clock_khz, 1980000);
  EXPECT_GT(facts.memory_clock_khz, 0);
  EXPECT_THROW(cudalab::query_device(gpus.count), cudalab::CudaError);
}

TEST(EmuDeviceInfo, CopyBandwidthCountsReadAndWrite) {
  const cudalab::BandwidthMeasurement copy = cudalab::measure_copy_bandwidth(1 << 20, 3);
  EXPECT_EQ(copy.bytes_moved, 2u << 20);
  EXPECT_GT(copy.time_ms, 0.0);
  EXPECT_DOUBLE_EQ(copy.gb_per_s(), copy.bytes_moved / copy.time_ms / 1e6);
  EXPECT_THROW(cudalab::measure_copy_bandwidth(0), std::invalid_argument);
}

}  // namespace
