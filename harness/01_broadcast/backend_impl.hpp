// The Backend implementation, written once and compiled twice: by nvcc in
// backend_gpu.cu and by the host compiler in backend_emu.cpp. Everything here
// sits in the inline namespace CUDALAB_BACKEND, so the two builds never share
// a name (see docs/architecture.md, "One kernel source, two backends").
//
// Each call: inputs to device buffers, the output surrounded by guard
// elements holding a known bit pattern, the lab's host function run (under an
// emulator Recording when asked), the output and guards copied back.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "backend.hpp"
#include "broadcast_nd.cuh"
#include "broadcast_sum.cuh"
#include "broadcast_vec.cuh"
#include "cudalab/check.hpp"
#include "cudalab/cuda_error.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/event_timer.hpp"
#include "cudalab/kernel.hpp"

#if !CUDALAB_GPU
#include <nlohmann/json.hpp>

#include "cudalab/emu/recorder.hpp"
#endif

namespace lab01::harness {
inline namespace CUDALAB_BACKEND {

// Guard elements after every output: a kernel that writes past the end of
// its output changes them (the emulator's bounds check cannot see such a
// write when it stays inside the allocation).
constexpr std::size_t kGuardElements = 32;

// The exception that escaped the lab code, as type name and message.
inline void record_exception(Observation& observation, std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const cudalab::CudaError& e) {
    observation.error_type = "cudalab::CudaError";
    observation.error = e.what();
  } catch (const std::invalid_argument& e) {
    observation.error_type = "std::invalid_argument";
    observation.error = e.what();
  } catch (const std::logic_error& e) {
    observation.error_type = "std::logic_error";
    observation.error = e.what();
  } catch (const std::exception& e) {
    observation.error_type = "std::exception";
    observation.error = e.what();
  } catch (...) {
    observation.error_type = "unknown exception";
    observation.error = "an exception that is not a std::exception";
  }
}

// The device memory an exercise writes: `count` elements of `element_bytes`
// at `base`, with guards of the same element type before and after.
struct OutputRegion {
  const void* base = nullptr;
  std::size_t element_bytes = 0;
  std::size_t count = 0;
};

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

// "block (0,0,0) thread (14,0,0) and block (1,0,0) thread (5,0,0)"
inline std::string writer_text(const cudalab::emu::ElementCoverage& element) {
  const std::size_t known = std::min<std::size_t>(element.writes, element.writers.size());
  std::string text;
  for (std::size_t w = 0; w < known; ++w) {
    text += (w == 0 ? "" : " and ") + element.writers[w].to_string();
  }
  if (element.writes > known) text += " and " + std::to_string(element.writes - known) + " more";
  return text;
}

inline SectorSummary summarize(const cudalab::emu::SectorStats& stats) {
  SectorSummary summary;
  summary.requests = stats.requests;
  summary.sectors = stats.sectors;
  summary.efficiency = stats.efficiency();
  for (std::size_t k = stats.sectors_histogram.size(); k-- > 0;) {
    if (stats.sectors_histogram[k] != 0) {
      summary.max_sectors = static_cast<unsigned>(k);
      break;
    }
  }
  return summary;
}

// Counts one write to the output by its width, and remembers the first
// misaligned one (a GPU faults on those).
inline void count_width(WriteWidths& widths, const cudalab::emu::AccessRecord& access,
                        std::uintptr_t begin, std::size_t element_bytes) {
  if (access.bytes <= 4) {
    ++widths.scalar_writes;
  } else if (access.bytes == 16) {
    ++widths.vector_writes;
  } else {
    ++widths.other_writes;
  }
  if (access.address % access.bytes == 0) return;
  if (widths.misaligned++ == 0) {
    const auto offset = access.address - begin;
    widths.first_misaligned = std::to_string(access.bytes) + "-byte write at element " +
                              std::to_string(offset / element_bytes) +
                              " of the output (byte offset " + std::to_string(offset) +
                              ", address " + std::to_string(access.address % 16) + " mod 16)";
  }
}

// On the emulator: a Recording while the lab code runs (when tracing), turned
// into the backend-free summaries of backend.hpp. Reports are collected, not
// printed: the tests and the run program show them where they belong.
class Observer {
 public:
  explicit Observer(const RunOptions& options) : options_(options), quiet_(quiet_options()) {
    if (options.trace) recording_.emplace();
  }

  void finish(Observation& observation, const OutputRegion& output) {
    observation.output_address = reinterpret_cast<std::uintptr_t>(output.base);
    if (!recording_) return;
    const auto& launches = recording_->launches();
    observation.launches = static_cast<int>(launches.size());
    const auto reports = recording_->reports();
    observation.report_count = reports.size();
    for (std::size_t r = 0; r < std::min<std::size_t>(reports.size(), 3); ++r) {
      observation.reports.push_back(reports[r].to_string());
    }

    cudalab::emu::Coverage merged;
    merged.elements.resize(output.count);
    cudalab::emu::SectorStats store_stats, load_stats;
    WriteWidths widths;
    const auto begin = reinterpret_cast<std::uintptr_t>(output.base);
    const auto end = begin + output.count * output.element_bytes;
    for (const auto& launch : launches) {
      cudalab::emu::add_coverage(merged, launch, output.base, output.element_bytes);
      store_stats.merge(launch.coalescing.stores);
      load_stats.merge(launch.coalescing.loads);
      for (const auto& access : launch.accesses) {
        if (!access.is_write() || access.is_shared()) continue;
        if (access.address < begin || access.address >= end) continue;
        count_width(widths, access, begin, output.element_bytes);
      }
    }
    CoverageSummary coverage;
    coverage.elements = output.count;
    coverage.complete = merged.complete;
    for (std::size_t i = 0; i < output.count; ++i) {
      const auto writes = merged.elements[i].writes;
      if (writes == 0) ++coverage.unwritten;
      if (writes == 1) ++coverage.written_once;
      if (writes > 1) ++coverage.written_more;
      if (writes != 1 && coverage.first_wrong.size() < 5) {
        coverage.first_wrong.push_back({i, writes, writer_text(merged.elements[i])});
      }
    }
    observation.coverage = std::move(coverage);
    observation.stores = summarize(store_stats);
    observation.loads = summarize(load_stats);
    observation.write_widths = widths;
    if (options_.export_json) observation.trace_json = cudalab::emu::to_json(*recording_).dump();
  }

 private:
  static cudalab::emu::Options quiet_options() {
    cudalab::emu::Options quiet = cudalab::emu::options();
    quiet.print_reports = false;
    return quiet;
  }

  RunOptions options_;
  cudalab::emu::ScopedOptions quiet_;
  std::optional<cudalab::emu::Recording> recording_;
};

#endif

// Copies `values` into a device buffer with `before` guard elements in front
// and kGuardElements behind, all guards holding `guard`.
template <class T>
cudalab::DeviceBuffer<T> guarded_copy(const std::vector<T>& values, std::size_t before, T guard) {
  std::vector<T> staged(before + values.size() + kGuardElements, guard);
  std::copy(values.begin(), values.end(), staged.begin() + static_cast<std::ptrdiff_t>(before));
  return cudalab::DeviceBuffer<T>(staged);
}

// Copies the output back into `values` and counts guard elements whose bits changed.
template <class T>
std::size_t copy_back_guarded(const cudalab::DeviceBuffer<T>& buffer, std::vector<T>& values,
                              std::size_t before, T guard) {
  const std::vector<T> staged = buffer.copy_to_host();
  std::copy_n(staged.begin() + static_cast<std::ptrdiff_t>(before), values.size(), values.begin());
  std::size_t changed = 0;
  for (std::size_t i = 0; i < staged.size(); ++i) {
    const bool is_guard = i < before || i >= before + values.size();
    if (is_guard && std::memcmp(&staged[i], &guard, sizeof(T)) != 0) ++changed;
  }
  return changed;
}

// A float NaN with a payload no arithmetic produces.
inline float guard_float() {
  const std::uint32_t bits = 0x7fa5a5a5u;
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}
constexpr std::uint16_t kGuardHalf = 0x7e5au;  // an fp16 NaN with a payload

class LabBackend final : public Backend {
 public:
  std::string name() const override {
#if CUDALAB_GPU
    cudaDeviceProp properties{};
    CUDA_CHECK(cudaGetDeviceProperties(&properties, 0));
    return std::string("GPU ") + properties.name;
#else
    return "CPU emulator";
#endif
  }
  bool is_emulator() const override { return !CUDALAB_GPU; }

  Observation broadcast_sum_lecture(std::vector<float>& a, const std::vector<float>& b, int x,
                                    int y, Launch2D launch, const RunOptions& options) override {
    const cudalab::LaunchShape shape{dim3(launch.grid_x, launch.grid_y, 1),
                                     dim3(launch.block, 1, 1)};
    return in_place(a, b, 0, options, [&](float* a_device, const float* b_device) {
      lab01::broadcast_sum_lecture(a_device, b_device, x, y, shape);
    });
  }

  Observation broadcast_sum(std::vector<float>& a, const std::vector<float>& b, int x, int y,
                            int block_size, const RunOptions& options) override {
    return in_place(a, b, 0, options, [&](float* a_device, const float* b_device) {
      lab01::broadcast_sum(a_device, b_device, x, y, block_size);
    });
  }

  Observation broadcast_sum_coalesced(std::vector<float>& a, const std::vector<float>& b, int x,
                                      int y, int block_size, const RunOptions& options) override {
    return in_place(a, b, 0, options, [&](float* a_device, const float* b_device) {
      lab01::broadcast_sum_coalesced(a_device, b_device, x, y, block_size);
    });
  }

  Shape broadcast_shapes(const Shape& a, const Shape& b) override {
    return lab01::broadcast_shapes(a, b);
  }

  Observation broadcast_add(std::vector<float>& out, const std::vector<float>& a,
                            const Shape& a_shape, const std::vector<float>& b, const Shape& b_shape,
                            int block_size, const RunOptions& options) override {
    return out_of_place<float, float>(out, a, a_shape, b, b_shape, block_size, guard_float(),
                                      options);
  }

  Observation broadcast_add_half(std::vector<std::uint16_t>& out,
                                 const std::vector<std::uint16_t>& a, const Shape& a_shape,
                                 const std::vector<std::uint16_t>& b, const Shape& b_shape,
                                 int block_size, const RunOptions& options) override {
    return out_of_place<std::uint16_t, __half>(out, a, a_shape, b, b_shape, block_size, kGuardHalf,
                                               options);
  }

  Observation broadcast_sum_vec4(std::vector<float>& a, const std::vector<float>& b, int x, int y,
                                 int a_offset, int block_size, const RunOptions& options) override {
    if (a_offset < 0 || a_offset > 3) {
      throw std::invalid_argument("broadcast_sum_vec4: a_offset must be 0..3");
    }
    return in_place(a, b, static_cast<std::size_t>(a_offset), options,
                    [&](float* a_device, const float* b_device) {
                      lab01::broadcast_sum_vec4(a_device, b_device, x, y, block_size);
                    });
  }

 private:
  // Runs `body` (the lab's host function), waits for the device, and records
  // the time and any exception.
  template <class Body>
  static void run(Observation& observation, const RunOptions& options, Body&& body) {
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
  }

  // a (x, y) += b (y) in place: a's view starts `before` floats into its buffer.
  template <class Body>
  static Observation in_place(std::vector<float>& a, const std::vector<float>& b,
                              std::size_t before, const RunOptions& options, Body&& body) {
    Observation observation;
    const float guard = guard_float();
    cudalab::DeviceBuffer<float> a_device = guarded_copy(a, before, guard);
    cudalab::DeviceBuffer<float> b_device(b);
    float* a_view = a_device.data() + before;
    {
      Observer observer(options);
      run(observation, options, [&] { body(a_view, b_device.data()); });
      observer.finish(observation, {a_view, sizeof(float), a.size()});
    }
    copy_back(observation, a_device, a, before, guard);
    return observation;
  }

  template <class Host, class Device>
  static Observation out_of_place(std::vector<Host>& out, const std::vector<Host>& a,
                                  const Shape& a_shape, const std::vector<Host>& b,
                                  const Shape& b_shape, int block_size, Host guard,
                                  const RunOptions& options) {
    static_assert(sizeof(Host) == sizeof(Device), "host and device elements have one layout");
    Observation observation;
    cudalab::DeviceBuffer<Host> out_device = guarded_copy(out, 0, guard);
    cudalab::DeviceBuffer<Host> a_device(a);
    cudalab::DeviceBuffer<Host> b_device(b);
    auto* out_view = reinterpret_cast<Device*>(out_device.data());
    {
      Observer observer(options);
      run(observation, options, [&] {
        lab01::broadcast_add<Device>(out_view, reinterpret_cast<const Device*>(a_device.data()),
                                     a_shape, reinterpret_cast<const Device*>(b_device.data()),
                                     b_shape, block_size);
      });
      observer.finish(observation, {out_view, sizeof(Host), out.size()});
    }
    copy_back(observation, out_device, out, 0, guard);
    return observation;
  }

  // The output back to the host, even after a failure (so a caller can see
  // what was written); a device fault found here is recorded like the others.
  template <class T>
  static void copy_back(Observation& observation, const cudalab::DeviceBuffer<T>& buffer,
                        std::vector<T>& values, std::size_t before, T guard) {
    try {
      observation.guard_elements_changed = copy_back_guarded(buffer, values, before, guard);
    } catch (...) {
      if (!observation.failed()) record_exception(observation, std::current_exception());
    }
  }
};

}  // namespace CUDALAB_BACKEND
}  // namespace lab01::harness
