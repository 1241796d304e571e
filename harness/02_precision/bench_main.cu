// lab02_bench: `./lab bench 02`. Times one GEMM, C = A B (row-major, A m x k,
// B k x n, uniform in [-1, 1)), in the five cuBLAS modes, the student's
// tensor-core GEMMs against cuBLAS on the same shape, and PyTorch's matmul
// under its flags (bench_pytorch.py), all in one run; then each mode's error
// against K.
//
// TFLOP/s = 2 m n k / time. bytes = A and B read once (in the mode's input
// type) + C written once. Errors are normwise, ||C - exact|| / ||exact||,
// against the fp64 product of the fp32 inputs, over 64 evenly spaced rows of
// C computed on the host (all 256 rows for the error-vs-K figures): the full
// fp64 product of a 10240^3 GEMM would take the host minutes.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "backend.hpp"
#include "cudalab/blas.hpp"
#include "cudalab/check.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/harness/bench.hpp"
#include "cudalab/numerics.hpp"
#include "cudalab/random.hpp"

namespace {

using cudalab::DeviceBuffer;
using cudalab::blas::ElementType;
using cudalab::blas::GemmTypes;
using cudalab::blas::MathMode;

// The five modes as exercise 2's blas_mode gives them.
struct BlasVersion {
  const char* version;
  GemmTypes types;
  MathMode math;
  const char* how;  // for the anchors' source line
};
const BlasVersion kBlas[] = {
    {"cublas_fp32", cudalab::blas::fp32_gemm, MathMode::pedantic, "CUBLAS_COMPUTE_32F_PEDANTIC"},
    {"cublas_tf32", cudalab::blas::fp32_gemm, MathMode::tf32_tensor_op,
     "CUBLAS_COMPUTE_32F_FAST_TF32"},
    {"cublas_fp16", cudalab::blas::fp16_gemm_fp32_accumulate, MathMode::default_math,
     "fp16 inputs, fp32 C, CUBLAS_COMPUTE_32F"},
    {"cublas_bf16", cudalab::blas::bf16_gemm_fp32_accumulate, MathMode::default_math,
     "bf16 inputs, fp32 C, CUBLAS_COMPUTE_32F"},
    {"cublas_fp16_acc16", cudalab::blas::fp16_gemm_fp16_accumulate, MathMode::default_math,
     "fp16 inputs and C, CUBLAS_COMPUTE_16F"},
};
const BlasVersion& blas_version(const std::string& name) {
  for (const BlasVersion& v : kBlas) {
    if (name == v.version) return v;
  }
  throw std::logic_error("no cuBLAS version " + name);
}

// bench_pytorch.py times torch.matmul on the same shapes.
constexpr int kCublasShapes[][3] = {{8192, 8192, 8192}, {10240, 10240, 10240}};
constexpr int kStudentSizes[] = {4096, 8192};
constexpr int kErrorSide = 256;  // m = n of the error-vs-K figures
constexpr int kErrorKs[] = {256, 1024, 4096, 16384, 65536};
constexpr int kSampledRows = 64;

std::uint64_t flops(int m, int n, int k) { return 2ull * m * n * k; }

std::uint64_t bytes_moved(int m, int n, int k, GemmTypes types) {
  return static_cast<std::uint64_t>(m) * k * cudalab::blas::element_bytes(types.inputs) +
         static_cast<std::uint64_t>(k) * n * cudalab::blas::element_bytes(types.inputs) +
         static_cast<std::uint64_t>(m) * n * cudalab::blas::element_bytes(types.output);
}

// A and B on the host (fp32) and on the device in each input type.
struct Operands {
  int m, n, k;
  std::vector<float> a, b;
  DeviceBuffer<float> a_fp32, b_fp32;
  DeviceBuffer<std::uint16_t> a_fp16, b_fp16, a_bf16, b_bf16;

  Operands(cudalab::Random& rng, int rows, int columns, int inner)
      : m(rows),
        n(columns),
        k(inner),
        a(rng.uniform(static_cast<std::size_t>(rows) * inner, -1.0f, 1.0f)),
        b(rng.uniform(static_cast<std::size_t>(inner) * columns, -1.0f, 1.0f)),
        a_fp32(a),
        b_fp32(b),
        a_fp16(converted(a, cudalab::numerics::fp32_to_fp16_bits)),
        b_fp16(converted(b, cudalab::numerics::fp32_to_fp16_bits)),
        a_bf16(converted(a, cudalab::numerics::fp32_to_bf16_bits)),
        b_bf16(converted(b, cudalab::numerics::fp32_to_bf16_bits)) {}

  const void* a_as(ElementType type) const {
    return type == ElementType::fp32   ? static_cast<const void*>(a_fp32.data())
           : type == ElementType::fp16 ? static_cast<const void*>(a_fp16.data())
                                       : static_cast<const void*>(a_bf16.data());
  }
  const void* b_as(ElementType type) const {
    return type == ElementType::fp32   ? static_cast<const void*>(b_fp32.data())
           : type == ElementType::fp16 ? static_cast<const void*>(b_fp16.data())
                                       : static_cast<const void*>(b_bf16.data());
  }

 private:
  template <class Convert>
  static std::vector<std::uint16_t> converted(const std::vector<float>& x, Convert convert) {
    std::vector<std::uint16_t> bits(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) bits[i] = convert(x[i]);
    return bits;
  }
};

// Evenly spaced rows of an m-row C (all of them when m <= count).
std::vector<int> sampled_rows(int m, int count) {
  std::vector<int> rows;
  const int taken = std::min(m, count);
  for (int r = 0; r < taken; ++r) {
    rows.push_back(static_cast<int>(static_cast<std::int64_t>(r) * m / taken));
  }
  return rows;
}

// Rows `rows` of the fp64 product of the fp32 inputs, one row per thread at a time.
std::vector<double> exact_rows(const Operands& x, const std::vector<int>& rows) {
  std::vector<double> exact(rows.size() * x.n, 0.0);
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (std::size_t r = t; r < rows.size(); r += threads) {
        double* out = exact.data() + r * x.n;
        const float* a_row = x.a.data() + static_cast<std::size_t>(rows[r]) * x.k;
        for (int p = 0; p < x.k; ++p) {
          const double a_rp = a_row[p];
          const float* b_row = x.b.data() + static_cast<std::size_t>(p) * x.n;
          for (int j = 0; j < x.n; ++j) out[j] += a_rp * b_row[j];
        }
      }
    });
  }
  for (std::thread& thread : pool) thread.join();
  return exact;
}

// Rows `rows` of the device's row-major C (n columns of `type`), as floats.
std::vector<float> copy_rows(const void* c, ElementType type, int n, const std::vector<int>& rows) {
  const std::size_t row_bytes = static_cast<std::size_t>(n) * cudalab::blas::element_bytes(type);
  std::vector<unsigned char> bytes(rows.size() * row_bytes);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    CUDA_CHECK(cudaMemcpy(bytes.data() + r * row_bytes,
                          static_cast<const unsigned char*>(c) + rows[r] * row_bytes, row_bytes,
                          cudaMemcpyDeviceToHost));
  }
  std::vector<float> values(rows.size() * n);
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (type == ElementType::fp32) {
      std::memcpy(&values[i], bytes.data() + 4 * i, 4);
      continue;
    }
    std::uint16_t bits;
    std::memcpy(&bits, bytes.data() + 2 * i, 2);
    values[i] = type == ElementType::fp16 ? cudalab::numerics::fp16_bits_to_fp32(bits)
                                          : cudalab::numerics::bf16_bits_to_fp32(bits);
  }
  return values;
}

// ||c - exact|| / ||exact||; NaN when c holds a NaN.
double normwise_error(const std::vector<float>& c, const std::vector<double>& exact) {
  double difference = 0, norm = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    const double d = c[i] - exact[i];
    difference += d * d;
    norm += exact[i] * exact[i];
  }
  return std::sqrt(difference / norm);
}

std::optional<cudalab::ErrorFigures> errors_of(double normwise) {
  if (!std::isfinite(normwise)) return std::nullopt;  // the writer refuses non-finite numbers
  return cudalab::ErrorFigures{.normwise = normwise};
}

// Row-major C = A B through column-major cuBLAS: C^T = B^T A^T (cudalab/blas.hpp).
void cublas_gemm(cudalab::blas::Handle& handle, const BlasVersion& v, const Operands& x, void* c) {
  using cudalab::blas::Op;
  cudalab::blas::gemm(handle, Op::none, Op::none, x.n, x.m, x.k, 1.0f, x.b_as(v.types.inputs), x.n,
                      x.a_as(v.types.inputs), x.k, 0.0f, c, x.n, v.types, v.math);
}

std::string shape_text(int m, int n, int k) {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

void print_header(const char* title) {
  std::printf("\n%s\n%-20s %18s %10s %9s %12s %10s\n", title, "version", "m x n x k", "ms",
              "TFLOP/s", "of anchor", "error");
}

void print_row(const cudalab::Figure& f, double error) {
  char fraction[32] = "";
  if (f.fraction_of) std::snprintf(fraction, sizeof fraction, "%.2f", f.fraction_of->value);
  char error_text[32] = "-";
  if (std::isfinite(error)) std::snprintf(error_text, sizeof error_text, "%.2e", error);
  std::printf("%-20s %18s %10.3f %9.1f %12s %10s\n", f.version.c_str(),
              shape_text(static_cast<int>(f.shape[0]), static_cast<int>(f.shape[1]),
                         static_cast<int>(f.shape[2]))
                  .c_str(),
              f.time_ms, f.value, fraction, error_text);
}

// Times cuBLAS in `v` on x and adds the figure (errors over `rows`).
const cudalab::Figure& time_cublas(cudalab::harness::BenchRun& run, const char* name,
                                   cudalab::blas::Handle& handle, const BlasVersion& v,
                                   const Operands& x, const std::vector<int>& rows,
                                   const std::vector<double>& exact) {
  DeviceBuffer<float> c(static_cast<std::size_t>(x.m) * x.n);  // fp16 C uses half of it
  const double ms = run.median_ms_cold_l2([&] { cublas_gemm(handle, v, x, c.data()); });
  CUDA_CHECK(cudaDeviceSynchronize());
  const double error = normwise_error(copy_rows(c.data(), v.types.output, x.n, rows), exact);
  const auto& figure =
      run.add_throughput(name, v.version, {x.m, x.n, x.k}, flops(x.m, x.n, x.k),
                         bytes_moved(x.m, x.n, x.k, v.types), ms, "", errors_of(error));
  print_row(figure, error);
  return figure;
}

void bench_cublas_modes(cudalab::harness::BenchRun& run, cudalab::blas::Handle& handle,
                        cudalab::Random& rng) {
  print_header("cuBLAS, five modes (errors over 64 sampled rows of C)");
  for (const auto& shape : kCublasShapes) {
    const Operands x(rng, shape[0], shape[1], shape[2]);
    const std::vector<int> rows = sampled_rows(x.m, kSampledRows);
    const std::vector<double> exact = exact_rows(x, rows);
    for (const BlasVersion& v : kBlas) time_cublas(run, "gemm", handle, v, x, rows, exact);
  }
}

// The student's GEMM on a small awkward shape against the fp64 product:
// an error above `tolerance` (or a NaN: an element not written) is wrong.
bool validate_student(const char* version, cudalab::Random& rng, double tolerance,
                      const std::function<void(const Operands&, float*)>& gemm) {
  const Operands x(rng, 133, 71, 97);
  std::vector<float> nan_filled(static_cast<std::size_t>(x.m) * x.n,
                                std::numeric_limits<float>::quiet_NaN());
  DeviceBuffer<float> c(nan_filled);
  const std::vector<int> rows = sampled_rows(x.m, x.m);
  try {
    gemm(x, c.data());
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
  } catch (const std::exception& e) {
    std::printf("%-20s failed on %s, not timed: %s\n", version, shape_text(x.m, x.n, x.k).c_str(),
                e.what());
    return false;
  }
  const double error =
      normwise_error(copy_rows(c.data(), ElementType::fp32, x.n, rows), exact_rows(x, rows));
  if (error <= tolerance) return true;
  std::printf("%-20s WRONG RESULT on %s (normwise error %.3g, allowed %.0e), not timed\n", version,
              shape_text(x.m, x.n, x.k).c_str(), error, tolerance);
  return false;
}

void bench_student(cudalab::harness::BenchRun& run, cudalab::blas::Handle& handle,
                   cudalab::Random& rng) {
  // The lab's GEMMs as the GPU build compiled them, on device pointers.
  std::string why_not;
  const auto gpu = lab02::harness::make_gpu_backend(&why_not);
  if (gpu == nullptr) throw std::runtime_error("lab02_bench needs the GPU backend: " + why_not);
  namespace entry = lab02::harness::entry;
  const auto tc_gemm_fp16 = gpu->device_function(entry::tc_gemm_fp16);
  const auto tc_gemm_tf32 = gpu->device_function(entry::tc_gemm_tf32);
  struct Student {
    const char* version;
    const char* anchor_version;  // cuBLAS in the same arithmetic
    double tolerance;            // the small-shape check: fp16 / TF32 rounding, with room
    std::function<void(const Operands&, float*)> gemm;
  };
  const Student students[] = {
      {"tc_gemm_fp16", "cublas_fp16", 1e-3,
       [&](const Operands& x, float* c) {
         tc_gemm_fp16(x.a_fp16.data(), x.b_fp16.data(), c, x.m, x.n, x.k);
       }},
      {"tc_gemm_tf32", "cublas_tf32", 1e-2,
       [&](const Operands& x, float* c) {
         tc_gemm_tf32(x.a_fp32.data(), x.b_fp32.data(), c, x.m, x.n, x.k);
       }},
  };
  print_header("your tensor-core GEMMs against cuBLAS on the same shape (the anchor)");
  for (const Student& student : students) {
    if (!validate_student(student.version, rng, student.tolerance, student.gemm)) continue;
    for (const int size : kStudentSizes) {
      const Operands x(rng, size, size, size);
      const std::vector<int> rows = sampled_rows(x.m, kSampledRows);
      const std::vector<double> exact = exact_rows(x, rows);
      // The anchor: cuBLAS timed here, so it shares the run and the inputs.
      const BlasVersion& v = blas_version(student.anchor_version);
      DeviceBuffer<float> c(static_cast<std::size_t>(x.m) * x.n);
      const double blas_ms = run.median_ms_cold_l2([&] { cublas_gemm(handle, v, x, c.data()); });
      const std::string anchor = std::string(v.version) + "@" + shape_text(size, size, size);
      cudalab::Anchor blas_anchor;
      blas_anchor.name = anchor;
      blas_anchor.value = static_cast<double>(flops(size, size, size)) / blas_ms / 1e9;
      blas_anchor.unit = "TFLOP/s";
      blas_anchor.time_ms = blas_ms;
      blas_anchor.source = std::string("cudalab::blas::gemm (cublasGemmEx, ") + v.how + "), " +
                           shape_text(size, size, size) + ", median of " +
                           std::to_string(run.repeats()) + ", L2 flushed";
      run.result().add_anchor(blas_anchor);

      const double ms = run.median_ms_cold_l2([&] { student.gemm(x, c.data()); });
      CUDA_CHECK(cudaDeviceSynchronize());
      const double error = normwise_error(copy_rows(c.data(), ElementType::fp32, x.n, rows), exact);
      const auto& figure =
          run.add_throughput("gemm", student.version, {size, size, size}, flops(size, size, size),
                             bytes_moved(size, size, size, v.types), ms, anchor, errors_of(error));
      print_row(figure, error);
    }
  }
}

void bench_error_vs_k(cudalab::harness::BenchRun& run, cudalab::blas::Handle& handle,
                      cudalab::Random& rng) {
  print_header("error against K, cuBLAS (m = n = 256, every row of C)");
  for (const int k : kErrorKs) {
    const Operands x(rng, kErrorSide, kErrorSide, k);
    const std::vector<int> rows = sampled_rows(x.m, x.m);
    const std::vector<double> exact = exact_rows(x, rows);
    for (const BlasVersion& v : kBlas) time_cublas(run, "error_vs_k", handle, v, x, rows, exact);
  }
}

void bench(cudalab::harness::BenchRun& run) {
  cudalab::Random rng = cudalab::Random::fresh();
  cudalab::blas::Handle handle;
  bench_cublas_modes(run, handle, rng);
  bench_student(run, handle, rng);
  bench_error_vs_k(run, handle, rng);

  run.merge_pytorch_throughput("gemm");
  bool header = false;
  for (const cudalab::Figure& f : run.result().figures) {
    if (f.version.rfind("torch_", 0) != 0) continue;
    if (!header)
      print_header("PyTorch torch.matmul (bench_pytorch.py; fp16/bf16 C as torch returns it)");
    header = true;
    print_row(f, std::numeric_limits<double>::quiet_NaN());
  }
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::harness::bench_main(argc, argv, "lab02_bench", "02_precision", bench);
}
