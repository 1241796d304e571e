// Lab 02's Backend, written once and compiled twice (by nvcc and by the
// host compiler, in units cmake/CudalabLab.cmake generates) inside the inline namespace
// CUDALAB_BACKEND. Each call copies its inputs to the device, runs the lab's
// host function on device pointers (call_on_output) and copies the result back.
#pragma once

#include <cstdint>
#include <stdexcept>
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

class LabBackend final : public cudalab::harness::BackendFor<Backend> {
 public:
  Observation to_fp16(std::vector<std::uint16_t>& out, const std::vector<float>& in,
                      const RunOptions& options) override {
    check_same_size(out.size(), in.size(), "to_fp16");
    DeviceBuffer<float> in_device(in);
    return call_on_output(out, options, [&](std::uint16_t* out_device) {
      lab02::to_fp16(out_device, in_device.data(), static_cast<int>(in.size()));
    });
  }

  Observation to_bf16(std::vector<std::uint16_t>& out, const std::vector<float>& in,
                      const RunOptions& options) override {
    check_same_size(out.size(), in.size(), "to_bf16");
    DeviceBuffer<float> in_device(in);
    return call_on_output(out, options, [&](std::uint16_t* out_device) {
      lab02::to_bf16(out_device, in_device.data(), static_cast<int>(in.size()));
    });
  }

  Observation to_tf32(std::vector<float>& out, const std::vector<float>& in, Tf32Rounding rounding,
                      const RunOptions& options) override {
    check_same_size(out.size(), in.size(), "to_tf32");
    DeviceBuffer<float> in_device(in);
    return call_on_output(out, options, [&](float* out_device) {
      lab02::to_tf32(out_device, in_device.data(), static_cast<int>(in.size()), rounding);
    });
  }

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

  std::vector<double> gemm_fp64(const std::vector<float>& a, const std::vector<float>& b, int m,
                                int n, int k) override {
    check_matrix(a, m, k, "gemm_fp64: a");
    check_matrix(b, k, n, "gemm_fp64: b");
    return lab02::gemm_fp64(a, b, m, n, k);
  }

  double normwise_relative_error(const std::vector<float>& c,
                                 const std::vector<double>& exact) override {
    check_same_size(c.size(), exact.size(), "normwise_relative_error");
    return lab02::normwise_relative_error(c, exact);
  }

  Observation predict_mma(MmaFormat format, const std::vector<std::uint32_t>& a,
                          const std::vector<std::uint32_t>& b, const std::vector<float>& c,
                          std::vector<float>& d, const RunOptions& options) override {
    const int blocks = check_blocks(format, a, b, c, d, "predict_mma");
    DeviceBuffer<std::uint32_t> a_device(a);
    DeviceBuffer<std::uint32_t> b_device(b);
    DeviceBuffer<float> c_device(c);
    return call_on_output(d, options, [&](float* d_device) {
      lab02::predict_mma_blocks(format, a_device.data(), b_device.data(), c_device.data(), d_device,
                                blocks);
    });
  }

  Observation mma_instruction(MmaFormat format, const std::vector<std::uint32_t>& a,
                              const std::vector<std::uint32_t>& b, const std::vector<float>& c,
                              std::vector<float>& d, const RunOptions& options) override {
    const int blocks = check_blocks(format, a, b, c, d, "mma_instruction");
    DeviceBuffer<std::uint32_t> a_device(a);
    DeviceBuffer<std::uint32_t> b_device(b);
    DeviceBuffer<float> c_device(c);
    return call_on_output(d, options, [&](float* d_device) {
      lab02::harness::mma_instruction(format, a_device.data(), b_device.data(), c_device.data(),
                                      d_device, blocks);
    });
  }

  Observation tc_gemm_fp16(int m, int n, int k, const std::vector<std::uint16_t>& a,
                           const std::vector<std::uint16_t>& b, std::vector<float>& c,
                           const RunOptions& options) override {
    check_matrix(a, m, k, "tc_gemm_fp16: a");
    check_matrix(b, k, n, "tc_gemm_fp16: b");
    check_matrix(c, m, n, "tc_gemm_fp16: c");
    DeviceBuffer<std::uint16_t> a_device(a);
    DeviceBuffer<std::uint16_t> b_device(b);
    return call_on_output(c, options, [&](float* c_device) {
      lab02::tc_gemm_fp16(reinterpret_cast<const __half*>(a_device.data()),
                          reinterpret_cast<const __half*>(b_device.data()), c_device, m, n, k);
    });
  }

  Observation tc_gemm_tf32(int m, int n, int k, const std::vector<float>& a,
                           const std::vector<float>& b, std::vector<float>& c,
                           const RunOptions& options) override {
    check_matrix(a, m, k, "tc_gemm_tf32: a");
    check_matrix(b, k, n, "tc_gemm_tf32: b");
    check_matrix(c, m, n, "tc_gemm_tf32: c");
    DeviceBuffer<float> a_device(a);
    DeviceBuffer<float> b_device(b);
    return call_on_output(c, options, [&](float* c_device) {
      lab02::tc_gemm_tf32(a_device.data(), b_device.data(), c_device, m, n, k);
    });
  }

  Observation round_operands(std::vector<float>& x, OperandRounding rounding,
                             const RunOptions& options) override {
    return call_on_output(x, options, [&](float* x_device) {
      lab02::round_operands(x_device, static_cast<int>(x.size()), rounding);
    });
  }

  double mean_signed_error(const std::vector<float>& c, const std::vector<double>& exact) override {
    check_same_size(c.size(), exact.size(), "mean_signed_error");
    return lab02::mean_signed_error(c, exact);
  }

 private:
  static void check_same_size(std::size_t a, std::size_t b, const char* what) {
    if (a != b) {
      throw std::invalid_argument(std::string(what) + ": the two vectors differ in size (" +
                                  std::to_string(a) + " and " + std::to_string(b) + ")");
    }
  }

  template <class T>
  static void check_matrix(const std::vector<T>& values, int rows, int cols, const char* what) {
    if (rows < 0 || cols < 0 ||
        values.size() != static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols)) {
      throw std::invalid_argument(std::string(what) + " must hold " + std::to_string(rows) + " x " +
                                  std::to_string(cols) + " elements, not " +
                                  std::to_string(values.size()));
    }
  }

  static int check_blocks(MmaFormat format, const std::vector<std::uint32_t>& a,
                          const std::vector<std::uint32_t>& b, const std::vector<float>& c,
                          const std::vector<float>& d, const char* what) {
    const std::size_t kb = static_cast<std::size_t>(cudalab::numerics::mma_k_block(format));
    if (a.size() != c.size() * kb || b.size() != c.size() * kb || d.size() != c.size()) {
      throw std::invalid_argument(std::string(what) + ": a and b must hold " + std::to_string(kb) +
                                  " patterns per block and d one value per c");
    }
    return static_cast<int>(c.size());
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

// What the benchmark times (bench_main.cu): the lab's host functions on
// device pointers, as the GPU build compiled them.
#if defined(__CUDACC__) && !CUDALAB_REFERENCE
namespace {

void tc_gemm_fp16_on_device(const void* a, const void* b, float* c, int m, int n, int k) {
  lab02::tc_gemm_fp16(static_cast<const __half*>(a), static_cast<const __half*>(b), c, m, n, k);
}

void tc_gemm_tf32_on_device(const float* a, const float* b, float* c, int m, int n, int k) {
  lab02::tc_gemm_tf32(a, b, c, m, n, k);
}

}  // namespace

DeviceFunctions gpu_device_functions() { return {tc_gemm_fp16_on_device, tc_gemm_tf32_on_device}; }
#endif

}  // namespace lab02::harness
