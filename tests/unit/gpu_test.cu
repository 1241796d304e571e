// The GPU backend of libcudalab's CUDA-calling headers (ctest label `gpu`).
// Every test but the probe needs a device and is skipped, with the reason,
// where there is none. Nothing here asserts a speed.
#include <gtest/gtest.h>

#include <cstdio>
#include <numeric>
#include <vector>

#include "cudalab/check.hpp"
#include "cudalab/compare_gtest.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/device_info.hpp"
#include "cudalab/event_timer.hpp"
#include "cudalab/kernel.hpp"
#include "cudalab/nccl.hpp"
#include "cudalab/random.hpp"

namespace {

// Test names carry "Gpu" for the ctest label, as the lab tests do.
#define SKIP_WITHOUT_GPU() \
  if (!cudalab::has_gpu()) GTEST_SKIP() << cudalab::no_gpu_reason()

__global__ void add_one(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

__global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

TEST(GpuProbe, NeverThrowsAndExplainsAMissingDevice) {
  const cudalab::GpuAvailability gpus = cudalab::probe_gpus();
  if (gpus.count == 0) {
    EXPECT_EQ(gpus.reason.rfind("no CUDA device: ", 0), 0u) << gpus.reason;
  } else {
    EXPECT_EQ(gpus.reason, "");
  }
  EXPECT_EQ(cudalab::has_gpu(), gpus.count > 0);
}

TEST(GpuDeviceBuffer, RoundTripThroughAKernel) {
  SKIP_WITHOUT_GPU();
  auto rng = cudalab::Random::fresh();
  SCOPED_TRACE(rng.seed_note());
  const int n = 100003;  // a prime: the last block is partly idle
  const std::vector<float> host = rng.uniform(n, -1.0f, 1.0f);
  cudalab::DeviceBuffer<float> x(host);
  add_one<<<dim3((n + 255) / 256), dim3(256)>>>(x.data(), n);
  CUDA_CHECK_LAUNCH();
  std::vector<float> expected = host;
  for (float& v : expected) v += 1.0f;
  EXPECT_TRUE(cudalab::all_close(x.copy_to_host(), expected, {}));
}

TEST(GpuCheck, BadLaunchConfigurationIsReportedAtTheLaunch) {
  SKIP_WITHOUT_GPU();
  cudalab::DeviceBuffer<float> x(8);
  add_one<<<1, 2048>>>(x.data(), 8);  // more threads per block than any GPU has
  const int line = __LINE__ + 2;
  try {
    CUDA_CHECK_LAUNCH();
    FAIL() << "a 2048-thread block was accepted";
  } catch (const cudalab::CudaError& error) {
    // CUDA 13 says cudaErrorInvalidValue here; CUDA 12 said cudaErrorInvalidConfiguration.
    EXPECT_TRUE(error.code_name() == "cudaErrorInvalidValue" ||
                error.code_name() == "cudaErrorInvalidConfiguration")
        << error.what();
    EXPECT_EQ(std::string(error.what()),
              "CUDA error " + error.code_name() + " (" + error.description() +
                  ") in 'cudaGetLastError()' at gpu_test.cu:" + std::to_string(line));
  }
  EXPECT_NO_THROW(CUDA_CHECK_LAUNCH());  // reported once, then cleared
}

TEST(GpuCheck, FailedAllocationThrowsAndNamesTheCall) {
  SKIP_WITHOUT_GPU();
  void* p = nullptr;
  try {
    CUDA_CHECK(cudaMalloc(&p, std::size_t{1} << 60));
    FAIL() << "a 1 EiB allocation succeeded";
  } catch (const cudalab::CudaError& error) {
    EXPECT_EQ(error.code_name(), "cudaErrorMemoryAllocation");
    EXPECT_EQ(error.expression(), "cudaMalloc(&p, std::size_t{1} << 60)");
  }
  EXPECT_THROW(cudalab::DeviceBuffer<double>(std::size_t{1} << 58), cudalab::CudaError);
  // The failure was reported by the exception, so it is no longer the "last
  // error" that the next launch check would find; and the device still works.
  EXPECT_NO_THROW(CUDA_CHECK_LAUNCH());
  EXPECT_NO_THROW(CUDA_CHECK(cudaDeviceSynchronize()));
}

TEST(GpuCheck, CublasErrorsUseTheSameFamily) {
  SKIP_WITHOUT_GPU();
  cublasHandle_t handle = nullptr;
  CUBLAS_CHECK(cublasCreate(&handle));
  const float one = 1.0f;
  try {
    // A negative matrix size is rejected before any work.
    CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, -1, 1, 1, &one, nullptr, 1, nullptr,
                             1, &one, nullptr, 1));
    ADD_FAILURE() << "cublasSgemm accepted m = -1";
  } catch (const cudalab::CudaError& error) {
    EXPECT_EQ(error.library(), "cuBLAS");
    EXPECT_EQ(error.code_name(), "CUBLAS_STATUS_INVALID_VALUE");
    EXPECT_EQ(std::string(error.what()).rfind("cuBLAS error CUBLAS_STATUS_INVALID_VALUE (", 0), 0u)
        << error.what();
  }
  CUBLAS_CHECK(cublasDestroy(handle));
}

TEST(GpuCheck, NcclErrorsUseTheSameFamily) {
  SKIP_WITHOUT_GPU();
  ncclUniqueId id{};
  NCCL_CHECK(ncclGetUniqueId(&id));
  ncclComm_t comm = nullptr;
  try {
    NCCL_CHECK(ncclCommInitRank(&comm, 1, id, 5));  // rank 5 of 1
    ADD_FAILURE() << "ncclCommInitRank accepted rank 5 of 1";
  } catch (const cudalab::CudaError& error) {
    EXPECT_EQ(error.library(), "NCCL");
    EXPECT_EQ(error.code_name(), "ncclInvalidArgument");
  }
}

TEST(GpuEventTimer, TimesWorkOnTheDevice) {
  SKIP_WITHOUT_GPU();
  cudalab::EventTimer timer;
  timer.start();
  spin<<<1, 1>>>(1'000'000);
  CUDA_CHECK_LAUNCH();
  timer.stop();
  // Only that the events measured something: performance is never asserted.
  EXPECT_GT(timer.elapsed_ms(), 0.0);
  const double median = cudalab::time_median_ms([] { spin<<<1, 1>>>(100'000); }, 1, 5);
  EXPECT_GT(median, 0.0);
}

TEST(GpuDeviceInfo, QueryAndCopyAnchor) {
  SKIP_WITHOUT_GPU();
  const cudalab::DeviceFacts gpu = cudalab::query_device();
  EXPECT_FALSE(gpu.name.empty());
  EXPECT_GT(gpu.sm_count, 0);
  EXPECT_GT(gpu.l2_bytes, 0u);
  EXPECT_GT(gpu.global_memory_bytes, 0u);
  EXPECT_GT(gpu.clock_khz, 0);
  EXPECT_GT(gpu.driver_version, 0);
  EXPECT_GT(gpu.runtime_version, 0);
  const cudalab::BandwidthMeasurement copy =
      cudalab::measure_copy_bandwidth(std::size_t{256} << 20);
  EXPECT_EQ(copy.bytes_moved, std::uint64_t{512} << 20);
  EXPECT_GT(copy.gb_per_s(), 0.0);
  std::printf(
      "%s: compute capability %s, %d SMs, %zu MiB L2, %zu GiB, driver %s, runtime %s; "
      "device copy %.0f GB/s\n",
      gpu.name.c_str(), gpu.compute_capability().c_str(), gpu.sm_count, gpu.l2_bytes >> 20,
      gpu.global_memory_bytes >> 30, cudalab::cuda_version_string(gpu.driver_version).c_str(),
      cudalab::cuda_version_string(gpu.runtime_version).c_str(), copy.gb_per_s());
  EXPECT_THROW(cudalab::query_device(cudalab::gpu_count()), cudalab::CudaError);
}

}  // namespace
