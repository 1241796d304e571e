// A launch's grid and block as plain numbers, for a lab's Backend interface:
// each backend has its own dim3 (CUDA's, or the emulator's copy of it), so
// launch shapes cross the interface as these and become a LaunchShape inside
// the backend (to_launch_shape in device_call.hpp).
#pragma once

#include <string>

namespace cudalab::harness {

struct Dims3 {
  unsigned x = 1, y = 1, z = 1;
};

struct LaunchDims {
  Dims3 grid, block;
};

// "grid (2, 1, 1), block (256, 1, 1)", for messages.
inline std::string launch_text(const LaunchDims& launch) {
  const auto dims = [](const Dims3& d) {
    return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) +
           ")";
  };
  return "grid " + dims(launch.grid) + ", block " + dims(launch.block);
}

}  // namespace cudalab::harness
