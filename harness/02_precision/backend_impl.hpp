// Lab 02's entry points (backend.hpp) bound to the lab's code, compiled once
// per backend (nvcc; the host compiler for the emulator) in units
// cmake/CudalabLab.cmake generates, inside the inline namespace
// CUDALAB_BACKEND; and exercise 2's experiment, which runs the lab's host
// function on device copies of its vectors (call_on_output).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "backend.hpp"
#include "cublas_modes.hpp"
#include "cudalab/blas.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/half_bits.hpp"
#include "cudalab/harness/device_call.hpp"
#include "error_vs_k.hpp"
#include "formats.cuh"
#include "hopper_gemm.cuh"
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
    bind(entry::gemm_fp64, lab02::gemm_fp64);
    bind(entry::normwise_relative_error, lab02::normwise_relative_error);
    bind(entry::predict_mma, lab02::predict_mma_blocks);
    bind(entry::mma_instruction, lab02::harness::mma_instruction);
    // Host bits, device __half: one layout.
    bind(entry::tc_gemm_fp16,
         [](const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k) {
           lab02::tc_gemm_fp16(reinterpret_cast<const __half*>(a),
                               reinterpret_cast<const __half*>(b), c, m, n, k);
         });
    bind(entry::tc_gemm_tf32, lab02::tc_gemm_tf32);
    bind(entry::hopper_gemm_bf16,
         [](const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k,
            int blocks) { lab02::hopper_gemm_bf16(a, b, c, m, n, k, nullptr, blocks); });
    bind(entry::round_operands, lab02::round_operands);
    bind(entry::mean_signed_error, lab02::mean_signed_error);
  }

  // Exercise 2 (not an entry point: backend.hpp says why).
  Observation gemm_in_mode(GemmMode mode, int m, int n, int k, const std::vector<float>& a,
                           const std::vector<float>& b, std::vector<float>& c,
                           const RunOptions& options) override {
    cudalab::harness::check_sizes(
        "gemm_in_mode", [&] { return entry::gemm_sizes(m, n, k); },
        std::array<std::size_t, 3>{a.size(), b.size(), c.size()});
    const auto run = [&](const auto& a_input, const auto& b_input) {
      DeviceBuffer a_device(a_input);
      DeviceBuffer b_device(b_input);
      if (mode != GemmMode::fp16_fp16_accumulate) {
        return call_on_output(c, options, [&](float* c_device) {
          lab02::gemm_in_mode(blas_, mode, m, n, k, a_device.data(), b_device.data(), c_device);
        });
      }
      std::vector<std::uint16_t> c_half = cudalab::to_half_bits(c);
      Observation observation = call_on_output(c_half, options, [&](std::uint16_t* c_device) {
        lab02::gemm_in_mode(blas_, mode, m, n, k, a_device.data(), b_device.data(), c_device);
      });
      c = cudalab::half_bits_to_floats(c_half);
      return observation;
    };
    switch (mode) {
      case GemmMode::fp32:
      case GemmMode::tf32:
        return run(a, b);
      case GemmMode::bf16_fp32_accumulate:
        return run(cudalab::to_bf16_bits(a), cudalab::to_bf16_bits(b));
      case GemmMode::fp16_fp32_accumulate:
      case GemmMode::fp16_fp16_accumulate:
        return run(cudalab::to_half_bits(a), cudalab::to_half_bits(b));
    }
    throw std::invalid_argument("gemm_in_mode: unknown mode");
  }

 private:
  cudalab::blas::Handle blas_;
};

}  // namespace CUDALAB_BACKEND
}  // namespace lab02::harness
