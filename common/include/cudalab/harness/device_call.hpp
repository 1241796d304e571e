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
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cudalab/check.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/event_timer.hpp"
#include "cudalab/harness/entry_points.hpp"
#include "cudalab/harness/guard_value.hpp"
#include "cudalab/harness/launch_dims.hpp"
#include "cudalab/harness/observation.hpp"
#include "cudalab/kernel.hpp"

#if !CUDALAB_GPU
#include "cudalab/harness/emu_observer.hpp"
#endif

namespace cudalab::harness {

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

// Device memory for `count` elements of `element_bytes` bytes (copied from
// `values`) with `before` guard elements in front and kGuardElements behind,
// each holding the bytes of `guard`; data() is the first of the values.
class GuardedBytes {
 public:
  static constexpr std::size_t kGuardElements = 32;

  GuardedBytes(const void* values, std::size_t element_bytes, std::size_t count, std::size_t before,
               const void* guard)
      : element_bytes_(element_bytes),
        before_(before),
        count_(count),
        guard_(static_cast<const std::byte*>(guard),
               static_cast<const std::byte*>(guard) + element_bytes),
        buffer_(staged(values)) {
#if !CUDALAB_GPU
    // The emulator refuses kernel accesses to the guards, reads included.
    CUDA_CHECK(cudalab::emu::set_guard_bytes(buffer_.data(), before_ * element_bytes_,
                                             kGuardElements * element_bytes_));
#endif
  }

  void* data() { return buffer_.data() + before_ * element_bytes_; }
  OutputRegion region() { return {data(), element_bytes_, count_}; }

  // Copies the values back into `values` and returns how many guard
  // elements changed.
  std::size_t copy_back(void* values) const {
    const std::vector<std::byte> all = buffer_.copy_to_host();
    std::copy_n(all.begin() + static_cast<std::ptrdiff_t>(before_ * element_bytes_),
                count_ * element_bytes_, static_cast<std::byte*>(values));
    std::size_t changed = 0;
    for (std::size_t i = 0; i < before_ + count_ + kGuardElements; ++i) {
      const bool is_guard = i < before_ || i >= before_ + count_;
      if (is_guard && std::memcmp(&all[i * element_bytes_], guard_.data(), element_bytes_) != 0) {
        ++changed;
      }
    }
    return changed;
  }

 private:
  std::vector<std::byte> staged(const void* values) const {
    std::vector<std::byte> all((before_ + count_ + kGuardElements) * element_bytes_);
    for (std::size_t i = 0; i < before_ + count_ + kGuardElements; ++i) {
      std::copy(guard_.begin(), guard_.end(),
                all.begin() + static_cast<std::ptrdiff_t>(i * element_bytes_));
    }
    if (count_ > 0) {
      std::memcpy(all.data() + before_ * element_bytes_, values, count_ * element_bytes_);
    }
    return all;
  }

  std::size_t element_bytes_;
  std::size_t before_;
  std::size_t count_;
  std::vector<std::byte> guard_;
  cudalab::DeviceBuffer<std::byte> buffer_;
};

// GuardedBytes of `values`, guarded by guard_value<T>().
template <class T>
class GuardedBuffer {
 public:
  static constexpr std::size_t kGuardElements = GuardedBytes::kGuardElements;

  GuardedBuffer(const std::vector<T>& values, std::size_t before)
      : bytes_(values.data(), sizeof(T), values.size(), before, &guard_) {}

  T* data() { return static_cast<T*>(bytes_.data()); }
  OutputRegion region() { return bytes_.region(); }
  std::size_t copy_back(std::vector<T>& values) const { return bytes_.copy_back(values.data()); }

 private:
  static inline const T guard_ = guard_value<T>();
  GuardedBytes bytes_;
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

// A lab's Backend called through entry points (entry_points.hpp), for this
// backend: the lab's constructor binds them; the device memory is this
// backend's.
template <class Interface>
class EntryBackendFor : public BackendFor<Interface> {
 protected:
  std::shared_ptr<void> upload(const void* host, std::size_t bytes) override {
    auto device = std::make_shared<cudalab::DeviceBuffer<std::byte>>(bytes);
    if (host != nullptr) {
      device->copy_from_host(
          std::span<const std::byte>(static_cast<const std::byte*>(host), bytes));
    }
    return std::shared_ptr<void>(device, device->data());
  }

  void download(void* host, const void* device, std::size_t bytes) override {
    CUDA_CHECK(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost));
  }

  Observation run_on_output(void* host, std::size_t element_bytes, std::size_t count,
                            std::size_t before, const void* guard, const RunOptions& options,
                            const std::function<void(void*)>& body) override {
    GuardedBytes device(host, element_bytes, count, before, guard);
    Observation observation = observe_call(options, device.region(), [&] { body(device.data()); });
    try {
      observation.guard_elements_changed = device.copy_back(host);
    } catch (...) {  // a fault the call itself did not see
      if (!observation.failed()) record_exception(observation, std::current_exception());
    }
    return observation;
  }
};

}  // namespace CUDALAB_BACKEND
}  // namespace cudalab::harness
