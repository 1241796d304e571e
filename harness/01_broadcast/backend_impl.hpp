// Lab 01's Backend, written once and compiled twice: by nvcc in
// backend_gpu.cu and by the host compiler in backend_emu.cpp, inside the
// inline namespace CUDALAB_BACKEND so that the two builds never share a name
// (docs/architecture.md, "One kernel source, two backends"). Each call hands
// the student's host function device pointers; call_on_output does the rest.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "backend.hpp"
#include "broadcast_nd.cuh"
#include "broadcast_sum.cuh"
#include "broadcast_vec.cuh"
#include "cudalab/device_buffer.hpp"
#include "cudalab/harness/device_call.hpp"

namespace lab01::harness {
inline namespace CUDALAB_BACKEND {

using cudalab::DeviceBuffer;
using cudalab::harness::call_on_output;

class LabBackend final : public cudalab::harness::BackendFor<Backend> {
 public:
  Observation broadcast_sum_lecture(std::vector<float>& a, const std::vector<float>& b, int x,
                                    int y, LaunchDims launch, const RunOptions& options) override {
    const cudalab::LaunchShape shape = cudalab::harness::to_launch_shape(launch);
    DeviceBuffer<float> b_device(b);
    return call_on_output(a, options, [&](float* a_device) {
      lab01::broadcast_sum_lecture(a_device, b_device.data(), x, y, shape);
    });
  }

  Observation broadcast_sum(std::vector<float>& a, const std::vector<float>& b, int x, int y,
                            int block_size, const RunOptions& options) override {
    DeviceBuffer<float> b_device(b);
    return call_on_output(a, options, [&](float* a_device) {
      lab01::broadcast_sum(a_device, b_device.data(), x, y, block_size);
    });
  }

  LaunchDims broadcast_sum_launch_shape(int size, int block_size) override {
    const cudalab::LaunchShape shape = lab01::broadcast_sum_launch_shape(size, block_size);
    return {{shape.grid.x, shape.grid.y, shape.grid.z},
            {shape.block.x, shape.block.y, shape.block.z}};
  }

  Observation broadcast_sum_coalesced(std::vector<float>& a, const std::vector<float>& b, int x,
                                      int y, int block_size, const RunOptions& options) override {
    DeviceBuffer<float> b_device(b);
    return call_on_output(a, options, [&](float* a_device) {
      lab01::broadcast_sum_coalesced(a_device, b_device.data(), x, y, block_size);
    });
  }

  Observation broadcast_sum_coalesced_on(std::vector<float>& a, const std::vector<float>& b, int x,
                                         int y, LaunchDims launch,
                                         const RunOptions& options) override {
    const cudalab::LaunchShape shape = cudalab::harness::to_launch_shape(launch);
    const int size = lab01::matrix_size(x, y);
    DeviceBuffer<float> b_device(b);
    return call_on_output(a, options, [&](float* a_device) {
      lab01::broadcast_sum_coalesced_kernel<<<shape.grid, shape.block>>>(a_device, b_device.data(),
                                                                         x, y, size);
    });
  }

  Shape broadcast_shapes(const Shape& a, const Shape& b) override {
    return lab01::broadcast_shapes(a, b);
  }

  Observation broadcast_add(std::vector<float>& out, const std::vector<float>& a,
                            const Shape& a_shape, const std::vector<float>& b, const Shape& b_shape,
                            int block_size, const RunOptions& options) override {
    return add<float, float>(out, a, a_shape, b, b_shape, block_size, options);
  }

  Observation broadcast_add_half(std::vector<std::uint16_t>& out,
                                 const std::vector<std::uint16_t>& a, const Shape& a_shape,
                                 const std::vector<std::uint16_t>& b, const Shape& b_shape,
                                 int block_size, const RunOptions& options) override {
    return add<std::uint16_t, __half>(out, a, a_shape, b, b_shape, block_size, options);
  }

  Observation broadcast_sum_vec4(std::vector<float>& a, const std::vector<float>& b, int x, int y,
                                 int a_offset, int block_size, const RunOptions& options) override {
    if (a_offset < 0 || a_offset > 3) {
      throw std::invalid_argument("broadcast_sum_vec4: a_offset must be 0..3");
    }
    DeviceBuffer<float> b_device(b);
    return call_on_output(a, static_cast<std::size_t>(a_offset), options, [&](float* a_device) {
      lab01::broadcast_sum_vec4(a_device, b_device.data(), x, y, block_size);
    });
  }

 private:
  // Host holds the bits of Device (uint16_t for __half).
  template <class Host, class Device>
  static Observation add(std::vector<Host>& out, const std::vector<Host>& a, const Shape& a_shape,
                         const std::vector<Host>& b, const Shape& b_shape, int block_size,
                         const RunOptions& options) {
    static_assert(sizeof(Host) == sizeof(Device), "host and device elements have one layout");
    DeviceBuffer<Host> a_device(a);
    DeviceBuffer<Host> b_device(b);
    return call_on_output(out, options, [&](Host* out_device) {
      lab01::broadcast_add<Device>(
          reinterpret_cast<Device*>(out_device), reinterpret_cast<const Device*>(a_device.data()),
          a_shape, reinterpret_cast<const Device*>(b_device.data()), b_shape, block_size);
    });
  }
};

}  // namespace CUDALAB_BACKEND
}  // namespace lab01::harness
