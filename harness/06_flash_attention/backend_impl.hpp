// Lab 06's Backend, written once and compiled twice (by nvcc and by the
// host compiler for the emulator, in units cmake/CudalabLab.cmake generates) inside the inline
// namespace CUDALAB_BACKEND. Each call checks the sizes it was given,
// copies the inputs to the device, runs the lab's host function on device
// pointers (call_on_output) and copies the result back.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/harness/device_call.hpp"
#include "flash_backward.cuh"
#include "flash_forward.cuh"
#include "flash_forward_bf16.cuh"
#include "naive_attention.cuh"
#include "online_softmax.cuh"

namespace lab06::harness {
inline namespace CUDALAB_BACKEND {

using cudalab::DeviceBuffer;
using cudalab::harness::call_on_output;

// The harness's shape as the lab's kernels take it.
inline AttentionShape lab_shape(const Attention& shape) {
  return {shape.heads, shape.n, shape.d, shape.scale, shape.causal};
}

class LabBackend final : public cudalab::harness::BackendFor<Backend> {
 public:
  Observation naive_attention(const Attention& shape, const std::vector<float>& q,
                              const std::vector<float>& k, const std::vector<float>& v,
                              std::vector<float>& o, const RunOptions& options) override {
    check_inputs(shape, q, k, v, "naive_attention");
    check_size(o.size(), shape.values(), "naive_attention: o");
    DeviceBuffer<float> q_device(q), k_device(k), v_device(v);
    DeviceBuffer<float> scores(static_cast<std::size_t>(shape.heads) * shape.n * shape.n);
    return call_on_output(o, options, [&](float* o_device) {
      lab06::naive_attention(q_device.data(), k_device.data(), v_device.data(), scores.data(),
                             o_device, lab_shape(shape));
    });
  }

  Observation online_softmax(const std::vector<float>& x, int rows, int columns, int block,
                             std::vector<float>& out, const RunOptions& options) override {
    if (rows < 0 || columns < 0) {
      throw std::invalid_argument("online_softmax: " + std::to_string(rows) + " x " +
                                  std::to_string(columns) + " is not a matrix");
    }
    const std::size_t values = static_cast<std::size_t>(rows) * columns;
    check_size(x.size(), values, "online_softmax: x");
    check_size(out.size(), values, "online_softmax: out");
    DeviceBuffer<float> x_device(x);
    return call_on_output(out, options, [&](float* out_device) {
      lab06::online_softmax(x_device.data(), out_device, rows, columns, block);
    });
  }

  Observation flash_forward(const Attention& shape, const std::vector<float>& q,
                            const std::vector<float>& k, const std::vector<float>& v,
                            std::vector<float>& out, const RunOptions& options) override {
    check_inputs(shape, q, k, v, "flash_forward");
    check_size(out.size(), shape.values() + shape.rows(), "flash_forward: out (o, then L)");
    DeviceBuffer<float> q_device(q), k_device(k), v_device(v);
    return call_on_output(out, options, [&](float* out_device) {
      lab06::flash_forward(q_device.data(), k_device.data(), v_device.data(), out_device,
                           out_device + shape.values(), lab_shape(shape));
    });
  }

  FlashTile flash_tile(int /*d*/) const override { return {kFlashQueryRows, kFlashKeyRows}; }

  Observation flash_forward_bf16(const Attention& shape, const std::vector<std::uint16_t>& q,
                                 const std::vector<std::uint16_t>& k,
                                 const std::vector<std::uint16_t>& v, std::vector<std::uint16_t>& o,
                                 std::vector<float>& lse, const RunOptions& options) override {
    check_inputs(shape, q, k, v, "flash_forward_bf16");
    check_size(o.size(), shape.values(), "flash_forward_bf16: o");
    check_size(lse.size(), shape.rows(), "flash_forward_bf16: lse");
    DeviceBuffer<std::uint16_t> q_device(q), k_device(k), v_device(v);
    DeviceBuffer<float> lse_device(lse);
    Observation observation = call_on_output(o, options, [&](std::uint16_t* o_device) {
      lab06::flash_forward_bf16(q_device.data(), k_device.data(), v_device.data(), o_device,
                                lse_device.data(), lab_shape(shape));
    });
    if (!observation.failed()) lse = lse_device.copy_to_host();
    return observation;
  }

  FlashTile flash_tile_bf16(int /*d*/) const override { return {kTcQueryRows, kTcKeyRows}; }

  // dq, dk and dv travel as one guarded output, in that order: one region
  // for the guards and for the emulator's coverage.
  Observation flash_backward(const Attention& shape, const std::vector<float>& q,
                             const std::vector<float>& k, const std::vector<float>& v,
                             const std::vector<float>& o, const std::vector<float>& d_o,
                             const std::vector<float>& lse, std::vector<float>& dq,
                             std::vector<float>& dk, std::vector<float>& dv,
                             const RunOptions& options) override {
    check_inputs(shape, q, k, v, "flash_backward");
    check_size(o.size(), shape.values(), "flash_backward: o");
    check_size(d_o.size(), shape.values(), "flash_backward: d_o");
    check_size(lse.size(), shape.rows(), "flash_backward: lse");
    check_size(dq.size(), shape.values(), "flash_backward: dq");
    check_size(dk.size(), shape.values(), "flash_backward: dk");
    check_size(dv.size(), shape.values(), "flash_backward: dv");
    DeviceBuffer<float> q_device(q), k_device(k), v_device(v), o_device(o), d_o_device(d_o),
        lse_device(lse);
    DeviceBuffer<float> delta(shape.rows());
    const std::size_t values = shape.values();
    std::vector<float> gradients(dq);
    gradients.insert(gradients.end(), dk.begin(), dk.end());
    gradients.insert(gradients.end(), dv.begin(), dv.end());
    Observation observation = call_on_output(gradients, options, [&](float* gradients_device) {
      lab06::flash_backward(q_device.data(), k_device.data(), v_device.data(), o_device.data(),
                            d_o_device.data(), lse_device.data(), delta.data(), gradients_device,
                            gradients_device + values, gradients_device + 2 * values,
                            lab_shape(shape));
    });
    const auto part = [&](std::size_t p) { return gradients.begin() + std::ptrdiff_t(p * values); };
    std::copy(part(0), part(1), dq.begin());
    std::copy(part(1), part(2), dk.begin());
    std::copy(part(2), part(3), dv.begin());
    return observation;
  }

  FlashTile flash_backward_tile(int /*d*/) const override { return {kBwdQueryRows, kBwdKeyRows}; }

 private:
  static void check_size(std::size_t got, std::size_t want, const std::string& what) {
    if (got != want) {
      throw std::invalid_argument(what + " has " + std::to_string(got) +
                                  " elements; the shape needs " + std::to_string(want));
    }
  }

  // The shape first (a d of 48 is named as such, not as a size mismatch),
  // then q, k and v against it.
  template <class T>
  static void check_inputs(const Attention& shape, const std::vector<T>& q, const std::vector<T>& k,
                           const std::vector<T>& v, const std::string& what) {
    check_shape(lab_shape(shape), what);
    check_size(q.size(), shape.values(), what + ": q");
    check_size(k.size(), shape.values(), what + ": k");
    check_size(v.size(), shape.values(), what + ": v");
  }
};

}  // namespace CUDALAB_BACKEND

// What the benchmark times (bench_main.cu): the lab's host functions on
// device pointers, as the GPU build compiled them.
#if defined(__CUDACC__) && !CUDALAB_REFERENCE
namespace {

void naive_on_device(const float* q, const float* k, const float* v, float* scores, float* o,
                     const Attention& shape) {
  lab06::naive_attention(q, k, v, scores, o, lab_shape(shape));
}

void flash_on_device(const float* q, const float* k, const float* v, float* o, float* lse,
                     const Attention& shape) {
  lab06::flash_forward(q, k, v, o, lse, lab_shape(shape));
}

void flash_bf16_on_device(const void* q, const void* k, const void* v, void* o, float* lse,
                          const Attention& shape) {
  lab06::flash_forward_bf16(
      static_cast<const std::uint16_t*>(q), static_cast<const std::uint16_t*>(k),
      static_cast<const std::uint16_t*>(v), static_cast<std::uint16_t*>(o), lse, lab_shape(shape));
}

void flash_backward_on_device(const float* q, const float* k, const float* v, const float* o,
                              const float* d_o, const float* lse, float* delta, float* dq,
                              float* dk, float* dv, const Attention& shape) {
  lab06::flash_backward(q, k, v, o, d_o, lse, delta, dq, dk, dv, lab_shape(shape));
}

}  // namespace

DeviceFunctions gpu_device_functions() {
  return {naive_on_device, flash_on_device, flash_bf16_on_device, flash_backward_on_device};
}
#endif

}  // namespace lab06::harness
