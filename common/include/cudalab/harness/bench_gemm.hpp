// What a benchmark of a GEMM (GPU only) needs: its flops and bytes, and
// how accurate a run was: the exact product of row-major float A (m x k)
// and B (k x n) in double precision on the host, over a sample of C's rows
// (the full fp64 product of a 10240^3 GEMM would take the host minutes),
// and the normwise error of the device's C over those rows.
//
//   const SampledProduct exact = sample_product(a, b, m, n, k, 64);
//   const double error = normwise_error(c.data(), ElementType::fp32, n, exact.rows, exact.exact);
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "cudalab/blas.hpp"
#include "cudalab/check.hpp"
#include "cudalab/numerics/formats.hpp"
#include "cudalab/results.hpp"

namespace cudalab::harness {

inline std::uint64_t gemm_flops(int m, int n, int k) { return 2ull * m * n * k; }

// The least a GEMM moves: A and B read once in `types.inputs`, C written
// once in `types.output`.
inline std::uint64_t gemm_bytes(int m, int n, int k, blas::GemmTypes types) {
  return (static_cast<std::uint64_t>(m) * k + static_cast<std::uint64_t>(k) * n) *
             blas::element_bytes(types.inputs) +
         static_cast<std::uint64_t>(m) * n * blas::element_bytes(types.output);
}

// `count` evenly spaced rows of an m-row C (all of them when m <= count).
inline std::vector<int> sampled_rows(int m, int count) {
  std::vector<int> rows;
  const int taken = std::min(m, count);
  for (int r = 0; r < taken; ++r) {
    rows.push_back(static_cast<int>(static_cast<std::int64_t>(r) * m / taken));
  }
  return rows;
}

// Rows `rows` of A B in double (rows.size() x n), one row per host thread at a time.
inline std::vector<double> exact_rows(const std::vector<float>& a, const std::vector<float>& b,
                                      int n, int k, const std::vector<int>& rows) {
  std::vector<double> exact(rows.size() * n, 0.0);
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (std::size_t r = t; r < rows.size(); r += threads) {
        double* out = exact.data() + r * n;
        const float* a_row = a.data() + static_cast<std::size_t>(rows[r]) * k;
        for (int p = 0; p < k; ++p) {
          const double a_rp = a_row[p];
          const float* b_row = b.data() + static_cast<std::size_t>(p) * n;
          for (int j = 0; j < n; ++j) out[j] += a_rp * b_row[j];
        }
      }
    });
  }
  for (std::thread& thread : pool) thread.join();
  return exact;
}

// ||C - exact|| / ||exact|| over rows `rows` of the device's row-major C
// (n columns of `type`); NaN when they hold a NaN.
inline double normwise_error(const void* c, blas::ElementType type, int n,
                             const std::vector<int>& rows, const std::vector<double>& exact) {
  const std::size_t width = blas::element_bytes(type), row_bytes = n * width;
  std::vector<unsigned char> bytes(rows.size() * row_bytes);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    CUDA_CHECK(cudaMemcpy(bytes.data() + r * row_bytes,
                          static_cast<const unsigned char*>(c) + rows[r] * row_bytes, row_bytes,
                          cudaMemcpyDeviceToHost));
  }
  double difference = 0, norm = 0;
  for (std::size_t i = 0; i < exact.size(); ++i) {
    float value = 0;
    if (type == blas::ElementType::fp32) {
      std::memcpy(&value, bytes.data() + 4 * i, 4);
    } else {
      std::uint16_t bits;
      std::memcpy(&bits, bytes.data() + 2 * i, 2);
      value = type == blas::ElementType::fp16 ? numerics::fp16_bits_to_fp32(bits)
                                              : numerics::bf16_bits_to_fp32(bits);
    }
    difference += (value - exact[i]) * (value - exact[i]);
    norm += exact[i] * exact[i];
  }
  return std::sqrt(difference / norm);
}

// `count` evenly spaced rows of A B (m x n) and their exact values.
struct SampledProduct {
  std::vector<int> rows;
  std::vector<double> exact;  // rows.size() x n
};
inline SampledProduct sample_product(const std::vector<float>& a, const std::vector<float>& b,
                                     int m, int n, int k, int count) {
  std::vector<int> rows = sampled_rows(m, count);
  std::vector<double> exact = exact_rows(a, b, n, k, rows);
  return {std::move(rows), std::move(exact)};
}

// The normwise error of the device's C over `sampled` as a result file
// takes it: none when it is not finite (the writer refuses NaN).
inline std::optional<ErrorFigures> sampled_error(const void* c, blas::ElementType type, int n,
                                                 const SampledProduct& sampled) {
  const double error = normwise_error(c, type, n, sampled.rows, sampled.exact);
  if (!std::isfinite(error)) return std::nullopt;
  return ErrorFigures{.normwise = error};
}

}  // namespace cudalab::harness
