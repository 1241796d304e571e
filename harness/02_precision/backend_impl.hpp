// Lab 02's entry points (backend.hpp) bound to the lab's code, written once
// and compiled twice (by nvcc and by the host compiler, in units
// cmake/CudalabLab.cmake generates) inside the inline namespace
// CUDALAB_BACKEND; and exercise 2's experiment, which copies its inputs to
// the device, runs the lab's host function on device pointers
// (call_on_output) and copies the result back.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend.hpp"
#include "cublas_modes.hpp"
#include "cudalab/blas.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/harness/device_call.hpp"
#include "cudalab/numerics.hpp"
#include "error_vs_k.hpp"
#include "formats.cuh"
#include "mma_instruction.cuh"
#include "predict_mma.cuh"
#include "round_operands.cuh"
#include "tc_gemm.cuh"

namespace lab02::harness {
inline namespace CUDALAB_BACKEND {

using cudalab::DeviceBuffer;
using cudalab::harness::call_on_output;

class LabBackend final : public cudalab::harness::EntryBackendFor<Backend> {
 public:
  LabBackend() {
    bind(entry::to_fp16, lab02::to_fp16);
    bind(entry::to_bf16, lab02::to_bf16);
    bind(entry::to_tf32, lab02::to_tf32);
    bind(entry::gemm_fp64, [](std::vector<float> a, std::vector<float> b, int m, int n, int k) {
      return lab02::gemm_fp64(a, b, m, n, k);
    });
    bind(entry::normwise_relative_error, [](std::vector<float> c, std::vector<double> exact) {
      return lab02::normwise_relative_error(c, exact);
    });
    bind(entry::predict_mma, lab02::predict_mma_blocks);
    bind(entry::mma_instruction, lab02::harness::mma_instruction);
    // Host bits, device __half: one layout.
    bind(entry::tc_gemm_fp16,
         [](const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k) {
           lab02::tc_gemm_fp16(reinterpret_cast<const __half*>(a),
                               reinterpret_cast<const __half*>(b), c, m, n, k);
         });
    bind(entry::tc_gemm_tf32, lab02::tc_gemm_tf32);
    bind(entry::round_operands, lab02::round_operands);
    bind(entry::mean_signed_error, [](std::vector<float> c, std::vector<double> exact) {
      return lab02::mean_signed_error(c, exact);
    });
  }

  // Exercise 2 (not an entry point: backend.hpp says why).
  Observation gemm_in_mode(GemmMode mode, int m, int n, int k, const std::vector<float>& a,
                           const std::vector<float>& b, std::vector<float>& c,
                           const RunOptions& options) override {
    check_matrix(a, m, k, "gemm_in_mode: a");
    check_matrix(b, k, n, "gemm_in_mode: b");
    check_matrix(c, m, n, "gemm_in_mode: c");
    const auto run = [&](const auto& a_input, const auto& b_input) {
      DeviceBuffer a_device(a_input);
      DeviceBuffer b_device(b_input);
      if (mode != GemmMode::fp16_fp16_accumulate) {
        return call_on_output(c, options, [&](float* c_device) {
          lab02::gemm_in_mode(blas_, mode, m, n, k, a_device.data(), b_device.data(), c_device);
        });
      }
      std::vector<std::uint16_t> c_half(c.size());
      for (std::size_t i = 0; i < c.size(); ++i) {
        c_half[i] = cudalab::numerics::fp32_to_fp16_bits(c[i]);
      }
      Observation observation = call_on_output(c_half, options, [&](std::uint16_t* c_device) {
        lab02::gemm_in_mode(blas_, mode, m, n, k, a_device.data(), b_device.data(), c_device);
      });
      for (std::size_t i = 0; i < c.size(); ++i) {
        c[i] = cudalab::numerics::fp16_bits_to_fp32(c_half[i]);
      }
      return observation;
    };
    switch (mode) {
      case GemmMode::fp32:
      case GemmMode::tf32:
        return run(a, b);
      case GemmMode::bf16_fp32_accumulate:
        return run(rounded(a, cudalab::numerics::fp32_to_bf16_bits),
                   rounded(b, cudalab::numerics::fp32_to_bf16_bits));
      case GemmMode::fp16_fp32_accumulate:
      case GemmMode::fp16_fp16_accumulate:
        return run(rounded(a, cudalab::numerics::fp32_to_fp16_bits),
                   rounded(b, cudalab::numerics::fp32_to_fp16_bits));
    }
    throw std::invalid_argument("gemm_in_mode: unknown mode");
  }

 private:
  template <class T>
  static void check_matrix(const std::vector<T>& values, int rows, int cols, const char* what) {
    if (rows < 0 || cols < 0 ||
        values.size() != static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols)) {
      throw std::invalid_argument(std::string(what) + " must hold " + std::to_string(rows) + " x " +
                                  std::to_string(cols) + " elements, not " +
                                  std::to_string(values.size()));
    }
  }

  template <class Convert>
  static std::vector<std::uint16_t> rounded(const std::vector<float>& values, Convert convert) {
    std::vector<std::uint16_t> bits(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) bits[i] = convert(values[i]);
    return bits;
  }

  cudalab::blas::Handle blas_;
};

}  // namespace CUDALAB_BACKEND
}  // namespace lab02::harness
