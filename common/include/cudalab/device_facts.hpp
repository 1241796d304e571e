// What cudalab records about a GPU: plain data, no CUDA calls, so result
// files can be written and read (by the viewer, on a laptop without a GPU)
// without any backend. device_info.hpp fills it in from the CUDA runtime.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace cudalab {

struct DeviceFacts {
  int index = 0;  // the CUDA device ordinal
  std::string name{};
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int sm_count = 0;
  std::size_t l2_bytes = 0;
  std::size_t global_memory_bytes = 0;
  int clock_khz = 0;         // peak SM clock
  int memory_clock_khz = 0;  // peak memory clock
  int memory_bus_bits = 0;
  int driver_version = 0;   // as CUDA encodes it: 1000 * major + 10 * minor (13000 = 13.0)
  int runtime_version = 0;  // the same encoding

  // "9.0"
  std::string compute_capability() const {
    return std::to_string(compute_capability_major) + "." +
           std::to_string(compute_capability_minor);
  }
};

// A timed transfer. Bandwidth counts every byte read plus every byte
// written, in decimal units: 1 GB/s = 1e9 bytes per second.
struct BandwidthMeasurement {
  std::uint64_t bytes_moved = 0;  // read + written
  double time_ms = 0;             // median of the timed repeats
  double gb_per_s() const {
    return time_ms > 0 ? static_cast<double>(bytes_moved) / time_ms / 1e6 : 0;
  }
};

// 13000 -> "13.0", 12040 -> "12.4"; 0 (unknown) -> "unknown".
inline std::string cuda_version_string(int encoded) {
  if (encoded <= 0) return "unknown";
  return std::to_string(encoded / 1000) + "." + std::to_string(encoded % 1000 / 10);
}

}  // namespace cudalab
