// How a lab's backend runs one call of the lab's host code, written once and
// compiled by each backend (nvcc for the GPU, the host compiler against the
// emulator) inside its inline namespace CUDALAB_BACKEND.
//
//   Observation broadcast_sum(std::vector<float>& a, ...) override {
//     cudalab::DeviceBuffer<float> b_device(b);
//     return cudalab::harness::call_on_output(a, options, [&](float* a_device) {
//       lab01::broadcast_sum(a_device, b_device.data(), x, y, block_size);
//     });
//   }
//
// The output goes to the device between guard elements holding a bit
// pattern no arithmetic produces; the lab code runs (observed by the emulator
// when it is the emulator); the device is synchronised; the output and the
// guards come back. An exception from the lab code, or a device fault, is
// recorded in the Observation instead of escaping.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cudalab/check.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/event_timer.hpp"
#include "cudalab/harness/launch_dims.hpp"
#include "cudalab/harness/observation.hpp"
#include "cudalab/kernel.hpp"

#if !CUDALAB_GPU
#include "cudalab/harness/emu_observer.hpp"
#endif

namespace cudalab::harness {

// The exception that escaped the lab code, as type name and message.
void record_exception(Observation& observation, std::exception_ptr error);

// The guard value of an element type: a NaN with a payload for floats, a
// repeated 0xA5 byte otherwise. A kernel that writes past its output changes
// the guards' bits even where the emulator's bounds check cannot see it (the
// write stays inside the allocation).
template <class T>
T guard_value() {
  static_assert(std::is_trivially_copyable_v<T>, "guards are compared bit by bit");
  T value;
  if constexpr (std::is_same_v<T, float>) {
    const std::uint32_t bits = 0x7fa5a5a5u;
    std::memcpy(&value, &bits, sizeof value);
  } else if constexpr (sizeof(T) == 2) {
    const std::uint16_t bits = 0x7e5au;  // an fp16 NaN with a payload
    std::memcpy(&value, &bits, sizeof value);
  } else {
    std::memset(&value, 0xa5, sizeof value);
  }
  return value;
}

inline namespace CUDALAB_BACKEND {

// The LaunchShape a LaunchDims stands for, with this backend's dim3.
inline LaunchShape to_launch_shape(const LaunchDims& launch) {
  return {dim3(launch.grid.x, launch.grid.y, launch.grid.z),
          dim3(launch.block.x, launch.block.y, launch.block.z)};
}

#if CUDALAB_GPU
// On the GPU nothing is traced.
class Observer {
 public:
  explicit Observer(const RunOptions&) {}
  void finish(Observation& observation, const OutputRegion& output) {
    observation.output_address = reinterpret_cast<std::uintptr_t>(output.base);
  }
};
#else
using Observer = EmuObserver;
#endif

// "GPU NVIDIA H200", "CPU emulator" or "tile interpreter".
inline std::string backend_name() {
#if CUDALAB_GPU
  cudaDeviceProp properties{};
  CUDA_CHECK(cudaGetDeviceProperties(&properties, 0));
  return std::string("GPU ") + properties.name;
#elif CUDALAB_INTERPRET
  return "tile interpreter";
#else
  return "CPU emulator";
#endif
}

// A lab's Backend interface implemented for this backend's name and kind;
// the lab adds its calls.
template <class Interface>
class BackendFor : public Interface {
 public:
  std::string name() const override { return backend_name(); }
  bool is_emulator() const override { return !CUDALAB_GPU; }
};

// Device memory for `values` with `before` guard elements in front and
// kGuardElements behind; data() is the first of the values.
template <class T>
class GuardedBuffer {
 public:
  static constexpr std::size_t kGuardElements = 32;

  GuardedBuffer(const std::vector<T>& values, std::size_t before)
      : before_(before), count_(values.size()), buffer_(staged(values, before)) {
#if !CUDALAB_GPU
    // The emulator refuses kernel accesses to the guards, reads included.
    CUDA_CHECK(cudalab::emu::set_guard_bytes(buffer_.data(), before_ * sizeof(T),
                                             kGuardElements * sizeof(T)));
#endif
  }

  T* data() { return buffer_.data() + before_; }
  OutputRegion region() { return {data(), sizeof(T), count_}; }

  // Copies the values back into `values` and returns how many guard
  // elements changed.
  std::size_t copy_back(std::vector<T>& values) const {
    const std::vector<T> all = buffer_.copy_to_host();
    std::copy_n(all.begin() + static_cast<std::ptrdiff_t>(before_), count_, values.begin());
    const T guard = guard_value<T>();
    std::size_t changed = 0;
    for (std::size_t i = 0; i < all.size(); ++i) {
      const bool is_guard = i < before_ || i >= before_ + count_;
      if (is_guard && std::memcmp(&all[i], &guard, sizeof(T)) != 0) ++changed;
    }
    return changed;
  }

 private:
  static std::vector<T> staged(const std::vector<T>& values, std::size_t before) {
    std::vector<T> all(before + values.size() + kGuardElements, guard_value<T>());
    std::copy(values.begin(), values.end(), all.begin() + static_cast<std::ptrdiff_t>(before));
    return all;
  }

  std::size_t before_;
  std::size_t count_;
  cudalab::DeviceBuffer<T> buffer_;
};

// Runs `body` (the lab's host code) observed on `output`, waits for the
// device, and records the time and any exception or device fault.
template <class Body>
Observation observe_call(const RunOptions& options, const OutputRegion& output, Body&& body) {
  Observation observation;
  Observer observer(options);
  try {
    cudalab::EventTimer timer;
    if (options.time) timer.start();
    body();
    CUDA_CHECK_LAUNCH();
    if (options.time) timer.stop();
    CUDA_CHECK(cudaDeviceSynchronize());
    if (options.time) {
      observation.kernel_ms = timer.elapsed_ms();
      observation.kernel_ms_is_gpu_time = CUDALAB_GPU;
    }
  } catch (...) {
    record_exception(observation, std::current_exception());
  }
  observer.finish(observation, output);
  return observation;
}

// observe_call on a guarded copy of `output` whose first element lies
// `before` elements into its allocation; `body(T* output_on_device)` runs the
// lab code. `output` comes back with what the device held afterwards, even
// after a failure, so a caller can see what was written.
template <class T, class Body>
Observation call_on_output(std::vector<T>& output, std::size_t before, const RunOptions& options,
                           Body&& body) {
  GuardedBuffer<T> device(output, before);
  Observation observation = observe_call(options, device.region(), [&] { body(device.data()); });
  try {
    observation.guard_elements_changed = device.copy_back(output);
  } catch (...) {  // a fault the call itself did not see
    if (!observation.failed()) record_exception(observation, std::current_exception());
  }
  return observation;
}

template <class T, class Body>
Observation call_on_output(std::vector<T>& output, const RunOptions& options, Body&& body) {
  return call_on_output(output, 0, options, std::forward<Body>(body));
}

}  // namespace CUDALAB_BACKEND
}  // namespace cudalab::harness
