// Lab 05's Backend, written once and compiled three times (by nvcc, and by
// the host compiler for the emulator and again for the tile interpreter, in
// units cmake/CudalabLab.cmake generates) inside the inline namespace CUDALAB_BACKEND. Each
// call copies its inputs to the device, runs the lab's host function on
// device pointers (call_on_output) and copies the result back.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/harness/device_call.hpp"
#include "grouped_ordering.cuh"
#include "masks.cuh"
#include "matmul.cuh"
#include "softmax.cuh"
#include "vector_add.cuh"

namespace lab05::harness {
inline namespace CUDALAB_BACKEND {

using cudalab::DeviceBuffer;
using cudalab::harness::call_on_output;
namespace tile = cudalab::tile;

// Writes the grouped tile of every program id (the student's GroupedOrder
// on the device).
struct GroupedTilesProgram {
  __device__ void operator()(GroupedOrder order, int grid_m, int grid_n, int* tiles) const {
    const int pid = tile::program_id(0);
    const TileCoords coords = order(pid, grid_m, grid_n);
    const auto which = tile::arange<2>();
    tile::store(tiles, 2 * pid + which, tile::where(which == 0, coords.m, coords.n));
  }
};

class LabBackend final : public cudalab::harness::BackendFor<Backend> {
 public:
  Observation add(const std::vector<float>& x, const std::vector<float>& y, std::vector<float>& out,
                  const RunOptions& options) override {
    same_length(x.size(), out.size(), "add: x");
    same_length(y.size(), out.size(), "add: y");
    DeviceBuffer<float> x_device(x), y_device(y);
    return call_on_output(out, options, [&](float* out_device) {
      lab05::add(x_device.data(), y_device.data(), out_device, length(out));
    });
  }

  Observation fused_activation(const std::vector<float>& x, std::vector<float>& out,
                               const RunOptions& options) override {
    same_length(x.size(), out.size(), "fused_activation: x");
    DeviceBuffer<float> x_device(x);
    return call_on_output(out, options, [&](float* out_device) {
      lab05::fused_activation(x_device.data(), out_device, length(out));
    });
  }

  Observation unfused_activation(const std::vector<float>& x, std::vector<float>& out,
                                 const RunOptions& options) override {
    same_length(x.size(), out.size(), "unfused_activation: x");
    DeviceBuffer<float> x_device(x), scratch(x.size());
    return call_on_output(out, options, [&](float* out_device) {
      lab05::unfused_activation(x_device.data(), scratch.data(), out_device, length(out));
    });
  }

  Observation strided_gather(const std::vector<float>& x, int stride, std::vector<float>& out,
                             const RunOptions& options) override {
    if (!out.empty() &&
        (stride < 0 || (out.size() - 1) * static_cast<std::size_t>(stride) >= x.size())) {
      throw std::invalid_argument("strided_gather: x has " + std::to_string(x.size()) +
                                  " elements, fewer than out.size() at stride " +
                                  std::to_string(stride) + " needs");
    }
    DeviceBuffer<float> x_device(x);
    return call_on_output(out, options, [&](float* out_device) {
      lab05::strided_gather(x_device.data(), stride, out_device, length(out));
    });
  }

  Observation column_sums(const std::vector<float>& x, int rows, int columns,
                          std::vector<float>& out, const RunOptions& options) override {
    check_matrix_size(x, rows, columns, out, "column_sums");
    DeviceBuffer<float> x_device(x);
    return call_on_output(out, options, [&](float* out_device) {
      lab05::column_sums(x_device.data(), rows, columns, out_device);
    });
  }

  Observation column_maxes(const std::vector<float>& x, int rows, int columns,
                           std::vector<float>& out, const RunOptions& options) override {
    check_matrix_size(x, rows, columns, out, "column_maxes");
    DeviceBuffer<float> x_device(x);
    return call_on_output(out, options, [&](float* out_device) {
      lab05::column_maxes(x_device.data(), rows, columns, out_device);
    });
  }

  Observation softmax(const std::vector<float>& x, int rows, int columns, int x_row_stride,
                      std::vector<float>& out, int out_row_stride,
                      const RunOptions& options) override {
    if (rows < 0 || columns < 0 || x.size() < strided_size(rows, columns, x_row_stride) ||
        out.size() < strided_size(rows, columns, out_row_stride)) {
      throw std::invalid_argument("softmax: x or out is too small for " + std::to_string(rows) +
                                  " rows of " + std::to_string(columns) + " at their strides");
    }
    DeviceBuffer<float> x_device(x);
    return call_on_output(out, options, [&](float* out_device) {
      lab05::softmax(x_device.data(), rows, columns, x_row_stride, out_device, out_row_stride);
    });
  }

  Observation matmul(int m, int n, int k, const std::vector<std::uint16_t>& a,
                     const std::vector<std::uint16_t>& b, std::vector<float>& c, Ordering ordering,
                     const RunOptions& options) override {
    if (m < 0 || n < 0 || k < 0 || a.size() != std::size_t(m) * k ||
        b.size() != std::size_t(k) * n || c.size() != std::size_t(m) * n) {
      throw std::invalid_argument("matmul: A, B and C must hold m*k, k*n and m*n elements");
    }
    DeviceBuffer<std::uint16_t> a_device(a), b_device(b);
    const auto* a_half = reinterpret_cast<const __half*>(a_device.data());
    const auto* b_half = reinterpret_cast<const __half*>(b_device.data());
    return call_on_output(c, options, [&](float* c_device) {
      if (ordering.grouped) {
        lab05::matmul_grouped(a_half, b_half, c_device, m, n, k, ordering.group_m);
      } else {
        lab05::matmul(a_half, b_half, c_device, m, n, k);
      }
    });
  }

  Observation grouped_tiles(int grid_m, int grid_n, int group_m, std::vector<int>& tiles,
                            const RunOptions& options) override {
    if (grid_m <= 0 || grid_n <= 0 || group_m <= 0 ||
        tiles.size() != 2 * std::size_t(grid_m) * grid_n) {
      throw std::invalid_argument("grouped_tiles: sizes must be > 0 and tiles hold 2 per program");
    }
    return call_on_output(tiles, options, [&](int* tiles_device) {
      tile::launch(GroupedTilesProgram{}, grid_m * grid_n, GroupedOrder{group_m}, grid_m, grid_n,
                   tiles_device);
    });
  }

  int first_wave_block_loads(Ordering ordering, int grid_m, int grid_n, int k_blocks,
                             int wave) override {
    if (ordering.grouped) {
      return lab05::first_wave_block_loads(GroupedOrder{ordering.group_m}, grid_m, grid_n, k_blocks,
                                           wave);
    }
    return lab05::first_wave_block_loads(RowMajorOrder{}, grid_m, grid_n, k_blocks, wave);
  }

  std::vector<int> matmul_tile() const override { return {kBlockM, kBlockN, kBlockK}; }

 private:
  static int length(const std::vector<float>& v) {
    if (v.size() > static_cast<std::size_t>(INT32_MAX)) {
      throw std::invalid_argument("lab 05: at most 2^31 - 1 elements");
    }
    return static_cast<int>(v.size());
  }
  static void same_length(std::size_t got, std::size_t want, const std::string& what) {
    if (got != want) {
      throw std::invalid_argument(what + " has " + std::to_string(got) + " elements, out has " +
                                  std::to_string(want));
    }
  }
  static void check_matrix_size(const std::vector<float>& x, int rows, int columns,
                                const std::vector<float>& out, const std::string& what) {
    if (rows < 0 || columns < 0 || x.size() != std::size_t(rows) * columns ||
        out.size() != std::size_t(columns)) {
      throw std::invalid_argument(what + ": x must hold rows * columns elements, out columns");
    }
  }
  static std::size_t strided_size(int rows, int columns, int stride) {
    return rows == 0 ? 0 : std::size_t(rows - 1) * std::size_t(stride) + std::size_t(columns);
  }
};

}  // namespace CUDALAB_BACKEND

// What the benchmark times (bench_main.cu): the lab's host functions on
// device pointers, as the GPU build compiled them.
#if defined(__CUDACC__) && !CUDALAB_REFERENCE
namespace {

void softmax_on_device(const float* x, int rows, int columns, float* out) {
  lab05::softmax(x, rows, columns, columns, out, columns);
}

void matmul_on_device(const void* a, const void* b, float* c, int m, int n, int k, int group_m) {
  const auto* a_half = static_cast<const __half*>(a);
  const auto* b_half = static_cast<const __half*>(b);
  if (group_m > 0) {
    lab05::matmul_grouped(a_half, b_half, c, m, n, k, group_m);
  } else {
    lab05::matmul(a_half, b_half, c, m, n, k);
  }
}

}  // namespace

DeviceFunctions gpu_device_functions() {
  return {lab05::add, lab05::fused_activation, lab05::unfused_activation, softmax_on_device,
          matmul_on_device};
}
#endif

}  // namespace lab05::harness
