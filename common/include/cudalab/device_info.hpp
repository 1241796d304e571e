// Facts about the GPU a run uses, and the figure every bandwidth is judged by.
//
//   if (!cudalab::has_gpu()) GTEST_SKIP() << cudalab::no_gpu_reason();
//   cudalab::DeviceFacts gpu = cudalab::query_device();
//   cudalab::BandwidthMeasurement copy = cudalab::measure_copy_bandwidth(size_t{1} << 30);
//
// Peak figures are not hard-coded from datasheets: a datasheet number is
// often unreachable, differs between board variants, and goes stale. The
// anchor is measured instead, in the same run: the device-to-device copy,
// the fastest simple kernel-free transfer, which a bandwidth-bound kernel is
// expected to approach.
#pragma once

#include <cstddef>
#include <string>

#include "cudalab/check.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/device_facts.hpp"
#include "cudalab/event_timer.hpp"
#include "cudalab/kernel.hpp"

namespace cudalab {
inline namespace CUDALAB_BACKEND {

// Whether devices can be used, and why not. Never throws: no driver, no
// device and a broken installation all come back as count 0 with a reason.
struct GpuAvailability {
  int count = 0;
  std::string reason;  // empty when count > 0
};

inline GpuAvailability probe_gpus() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    // The failed query leaves its error as the "last error"; clear it so the
    // next CUDA_CHECK_LAUNCH() does not report it against an innocent launch.
    static_cast<void>(cudaGetLastError());
    return {0, std::string("no CUDA device: ") + cudaGetErrorName(status) + " (" +
                   cudaGetErrorString(status) + ")"};
  }
  if (count == 0) return {0, "no CUDA device: the driver reports none"};
  return {count, ""};
}

inline int gpu_count() { return probe_gpus().count; }
inline bool has_gpu() { return gpu_count() > 0; }
// "" when there is a device; otherwise the reason a GPU test is skipped.
inline std::string no_gpu_reason() { return probe_gpus().reason; }

// "" when device 0 has compute capability `major`.x or newer (exactly
// `major`.x where `exact`: sm_90a's instructions run on Hopper only);
// otherwise the reason a GPU test of `what` is skipped.
inline std::string missing_capability_reason(int major, const std::string& what,
                                             bool exact = false) {
  if (!has_gpu()) return no_gpu_reason();
  cudaDeviceProp p{};
  CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
  if (exact ? p.major == major : p.major >= major) return "";
  return what + " needs compute capability " + std::to_string(major) + ".x" +
         (exact ? "" : " or newer") + " (this GPU: " + std::to_string(p.major) + "." +
         std::to_string(p.minor) + ")";
}

// Throws cudalab::CudaError for a device that does not exist.
inline DeviceFacts query_device(int device = 0) {
  cudaDeviceProp properties{};
  CUDA_CHECK(cudaGetDeviceProperties(&properties, device));
  DeviceFacts facts;
  facts.index = device;
  facts.name = properties.name;
  facts.compute_capability_major = properties.major;
  facts.compute_capability_minor = properties.minor;
  facts.sm_count = properties.multiProcessorCount;
  facts.l2_bytes = static_cast<std::size_t>(properties.l2CacheSize);
  facts.global_memory_bytes = properties.totalGlobalMem;
  facts.memory_bus_bits = properties.memoryBusWidth;
  // CUDA 13 dropped the clock fields from cudaDeviceProp; the attributes remain
  // (on the emulator, the H100's or H200's it describes).
  CUDA_CHECK(cudaDeviceGetAttribute(&facts.clock_khz, cudaDevAttrClockRate, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&facts.memory_clock_khz, cudaDevAttrMemoryClockRate, device));
#if CUDALAB_GPU
  CUDA_CHECK(cudaDriverGetVersion(&facts.driver_version));
  CUDA_CHECK(cudaRuntimeGetVersion(&facts.runtime_version));
#else
  // The emulator has no driver or runtime library: both stay 0 (written as
  // "unknown" in result files).
#endif
  return facts;
}

// Copies `bytes` from one device buffer to another with cudaMemcpy and
// returns the median time of `repeats` copies; bytes_moved counts the read
// and the write (2 * bytes), the convention for bandwidth kernels too.
// Use a size well beyond the L2 (a few hundred MB to 1 GiB) to measure DRAM.
inline BandwidthMeasurement measure_copy_bandwidth(std::size_t bytes, int repeats = 10) {
  if (bytes == 0) throw std::invalid_argument("measure_copy_bandwidth: bytes must be > 0");
  DeviceBuffer<unsigned char> source(bytes);
  DeviceBuffer<unsigned char> destination(bytes);
  source.fill_bytes(1);  // touch every page before timing
  const double ms = time_median_ms(
      [&] {
        CUDA_CHECK(cudaMemcpy(destination.data(), source.data(), bytes, cudaMemcpyDeviceToDevice));
      },
      /*warmup=*/2, repeats);
  return BandwidthMeasurement{.bytes_moved = 2 * static_cast<std::uint64_t>(bytes), .time_ms = ms};
}

}  // namespace CUDALAB_BACKEND
}  // namespace cudalab
