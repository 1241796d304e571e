// lab05_bench: `./lab bench 05`. The lab's tile programs on the GPU against
// anchors measured in the same run:
//   activation  sqrt(x + 1) fused (one program) and unfused (two), fp32, n
//               elements: bytes = 8n (x read once, out written once), against
//               a device copy of 4n bytes (the same traffic) and PyTorch's
//               eager torch.sqrt(x + 1) and torch.compile'd version;
//   softmax     row softmax, fp32: bytes = 8 rows columns, against a copy of
//               the same size and torch.softmax;
//   matmul      fp16 A and B, fp32 C: TFLOP/s = 2 m n k / time, row-major and
//               grouped tile order, against cuBLAS on the same inputs
//               (cublasGemmEx, fp16 in, fp32 C, CUBLAS_COMPUTE_32F).
// Each version is first checked on a small awkward shape against a CPU
// reference; a wrong one is reported and not timed.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend.hpp"
#include "cudalab/blas.hpp"
#include "cudalab/check.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/harness/bench.hpp"
#include "cudalab/harness/bench_gemm.hpp"
#include "cudalab/numerics.hpp"
#include "cudalab/numerics/vectors.hpp"
#include "cudalab/random.hpp"

namespace {

using cudalab::DeviceBuffer;
namespace entry = lab05::harness::entry;
using cudalab::harness::BenchRun;

// Keep equal to bench_pytorch.py's ACTIVATION_SIZES and SOFTMAX_SHAPES.
constexpr std::int64_t kActivationSizes[] = {1 << 21, 1 << 24, 1 << 28};
constexpr int kSoftmaxShapes[][2] = {{4096, 4096}, {1823, 781}, {16384, 1024}};
constexpr int kMatmulSizes[] = {4096};
constexpr int kGroupM = 8;

std::vector<float> host_copy(const DeviceBuffer<float>& device) { return device.copy_to_host(); }

// The largest |got - want| / (|want| + 1e-6), NaN when got holds one.
double worst_error(const std::vector<float>& got, const std::vector<double>& want) {
  double worst = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double e = std::fabs(got[i] - want[i]) / (std::fabs(want[i]) + 1e-6);
    if (!(e <= worst)) worst = e;  // NaN sticks
  }
  return worst;
}

bool checked(const char* version, double error, double tolerance) {
  if (error <= tolerance) return true;
  std::printf("%-22s WRONG RESULT on the check shape (error %.3g, allowed %.0e): not timed\n",
              version, error, tolerance);
  return false;
}

// The lab's functions as the GPU build compiled them, on device pointers
// (the entry points of backend.hpp), in the shapes the benchmark times.
struct Lab {
  explicit Lab(const lab05::harness::Backend& gpu)
      : fused_activation(gpu.device_function(entry::fused_activation)),
        unfused_activation(gpu.device_function(entry::unfused_activation)),
        softmax_rows(gpu.device_function(entry::softmax)),
        matmul_tiles(gpu.device_function(entry::matmul)) {}

  // Contiguous rows.
  void softmax(const float* x, int rows, int columns, float* out) const {
    softmax_rows(x, rows, columns, columns, out, columns);
  }
  // group_m 0: row-major order.
  void matmul(const void* a, const void* b, float* c, int m, int n, int k, int group_m) const {
    matmul_tiles(m, n, k, static_cast<const std::uint16_t*>(a),
                 static_cast<const std::uint16_t*>(b), c,
                 lab05::harness::Ordering{group_m > 0, group_m});
  }

  cudalab::harness::DeviceOf<entry::fused_activation> fused_activation;
  cudalab::harness::DeviceOf<entry::unfused_activation> unfused_activation;
  cudalab::harness::DeviceOf<entry::softmax> softmax_rows;
  cudalab::harness::DeviceOf<entry::matmul> matmul_tiles;
};

// ---- activation ------------------------------------------------------------------

void bench_activation(BenchRun& run, const Lab& lab, cudalab::Random& rng) {
  {  // the check: n = 1000003 against sqrtf(x + 1)
    const int n = 1000003;
    const auto x = rng.uniform(n, 0.0f, 100.0f);
    std::vector<double> want(n);
    for (int i = 0; i < n; ++i) want[i] = std::sqrt(x[i] + 1.0f);
    DeviceBuffer<float> x_device(x), scratch(n), out(n);
    lab.fused_activation(x_device.data(), out.data(), n);
    CUDA_CHECK_LAUNCH();
    if (!checked("tile_fused", worst_error(host_copy(out), want), 1e-6)) return;
    lab.unfused_activation(x_device.data(), scratch.data(), out.data(), n);
    CUDA_CHECK_LAUNCH();
    if (!checked("tile_unfused", worst_error(host_copy(out), want), 1e-6)) return;
  }
  run.print_header("sqrt(x + 1), fp32 (anchor: a copy of the same bytes)", "shape", "GB/s");
  for (const std::int64_t n : kActivationSizes) {
    DeviceBuffer<float> x(static_cast<std::size_t>(n)), scratch(x.size()), out(x.size());
    CUDA_CHECK(cudaMemset(x.data(), 0, x.size() * sizeof(float)));
    const std::string copy = run.same_size_copy_anchor(4ull * n);
    const double fused_ms = run.median_ms_cold_l2(
        [&] { lab.fused_activation(x.data(), out.data(), static_cast<int>(n)); });
    run.print_row(run.add_bandwidth("activation", "tile_fused", {n}, 8ull * n, fused_ms, copy));
    const double unfused_ms = run.median_ms_cold_l2(
        [&] { lab.unfused_activation(x.data(), scratch.data(), out.data(), static_cast<int>(n)); });
    run.print_row(run.add_bandwidth("activation", "tile_unfused", {n}, 8ull * n, unfused_ms, copy));
  }
}

// ---- softmax -----------------------------------------------------------------------

void bench_softmax(BenchRun& run, const Lab& lab, cudalab::Random& rng) {
  {  // the check: 37 x 781 against the double-precision softmax
    const int rows = 37, columns = 781;
    const auto x = rng.uniform(std::size_t(rows) * columns, -10.0f, 10.0f);
    std::vector<double> want(x.size());
    for (int r = 0; r < rows; ++r) {
      const float* row = x.data() + std::size_t(r) * columns;
      const double top = *std::max_element(row, row + columns);
      double total = 0;
      for (int c = 0; c < columns; ++c) total += std::exp(row[c] - top);
      for (int c = 0; c < columns; ++c) {
        want[std::size_t(r) * columns + c] = std::exp(row[c] - top) / total;
      }
    }
    DeviceBuffer<float> x_device(x), out(x.size());
    lab.softmax(x_device.data(), rows, columns, out.data());
    CUDA_CHECK_LAUNCH();
    if (!checked("tile_softmax", worst_error(host_copy(out), want), 1e-4)) return;
  }
  run.print_header("row softmax, fp32 (anchor: a copy of the same bytes)", "shape", "GB/s");
  for (const auto& [rows, columns] : kSoftmaxShapes) {
    const std::uint64_t elements = std::uint64_t(rows) * columns;
    DeviceBuffer<float> x(rng.uniform(elements, -10.0f, 10.0f)), out(elements);
    const std::string copy = run.same_size_copy_anchor(4 * elements);
    const double ms =
        run.median_ms_cold_l2([&] { lab.softmax(x.data(), rows, columns, out.data()); });
    run.print_row(
        run.add_bandwidth("softmax", "tile_softmax", {rows, columns}, 8 * elements, ms, copy));
  }
}

// ---- matmul ------------------------------------------------------------------------

void bench_matmul(BenchRun& run, const Lab& lab, cudalab::Random& rng) {
  cudalab::blas::Handle handle;
  for (const int group_m : {0, kGroupM}) {  // the check: 133 x 71 x 97
    const int m = 133, n = 71, k = 97;
    const auto a = cudalab::numerics::to_fp16_bits(rng.uniform(std::size_t(m) * k, -1.0f, 1.0f));
    const auto b = cudalab::numerics::to_fp16_bits(rng.uniform(std::size_t(k) * n, -1.0f, 1.0f));
    std::vector<double> want(std::size_t(m) * n, 0.0);
    for (int i = 0; i < m; ++i) {
      for (int p = 0; p < k; ++p) {
        const double a_ip = cudalab::numerics::fp16_bits_to_fp32(a[std::size_t(i) * k + p]);
        for (int j = 0; j < n; ++j) {
          want[std::size_t(i) * n + j] +=
              a_ip * cudalab::numerics::fp16_bits_to_fp32(b[std::size_t(p) * n + j]);
        }
      }
    }
    DeviceBuffer<std::uint16_t> a_device(a), b_device(b);
    DeviceBuffer<float> c(want.size());
    lab.matmul(a_device.data(), b_device.data(), c.data(), m, n, k, group_m);
    CUDA_CHECK_LAUNCH();
    double worst = 0;  // absolute: C's elements can be near 0
    const auto got = host_copy(c);
    for (std::size_t i = 0; i < got.size(); ++i) {
      const double e = std::fabs(got[i] - want[i]);
      if (!(e <= worst)) worst = e;
    }
    if (!checked(group_m ? "tile_matmul_grouped" : "tile_matmul", worst, 1e-3)) return;
  }
  run.print_header("matmul, fp16 in, fp32 C (anchor: cuBLAS on the same inputs)", "shape",
                   "TFLOP/s");
  for (const int size : kMatmulSizes) {
    const std::uint64_t elements = std::uint64_t(size) * size;
    DeviceBuffer<std::uint16_t> a(
        cudalab::numerics::to_fp16_bits(rng.uniform(elements, -1.0f, 1.0f)));
    DeviceBuffer<std::uint16_t> b(
        cudalab::numerics::to_fp16_bits(rng.uniform(elements, -1.0f, 1.0f)));
    DeviceBuffer<float> c(elements);
    const std::uint64_t flops = cudalab::harness::gemm_flops(size, size, size);
    const std::uint64_t bytes =
        cudalab::harness::gemm_bytes(size, size, size, cudalab::blas::fp16_gemm_fp32_accumulate);
    const std::string shape =
        std::to_string(size) + "x" + std::to_string(size) + "x" + std::to_string(size);
    const double blas_ms = run.median_ms_cold_l2([&] {
      cudalab::blas::gemm_row_major(handle, size, size, size, a.data(), b.data(), c.data(),
                                    cudalab::blas::fp16_gemm_fp32_accumulate,
                                    cudalab::blas::MathMode::default_math);
    });
    const std::string anchor = run.add_throughput_anchor(
        "cublas_fp16@" + shape, flops, blas_ms,
        "cudalab::blas::gemm (cublasGemmEx, fp16 inputs, fp32 C, CUBLAS_COMPUTE_32F), " + shape +
            ", median of " + std::to_string(run.repeats()) + ", L2 flushed");
    std::printf("%-34s %18s %10.3f %10.1f %10s\n", "cublas_fp16", shape.c_str(), blas_ms,
                static_cast<double>(flops) / blas_ms / 1e9, "1.00");
    for (const int group_m : {0, kGroupM}) {
      const double ms = run.median_ms_cold_l2(
          [&] { lab.matmul(a.data(), b.data(), c.data(), size, size, size, group_m); });
      run.print_row(run.add_throughput("matmul", group_m ? "tile_matmul_grouped" : "tile_matmul",
                                       {size, size, size}, flops, bytes, ms, anchor));
    }
  }
}

void bench(BenchRun& run) {
  cudalab::Random rng = cudalab::Random::fresh();
  std::string why_not;
  const auto gpu = lab05::harness::make_gpu_backend(&why_not);
  if (gpu == nullptr) throw std::runtime_error("lab05_bench needs the GPU backend: " + why_not);
  const Lab lab(*gpu);
  bench_activation(run, lab, rng);
  bench_softmax(run, lab, rng);
  bench_matmul(run, lab, rng);

  const auto copy_of_shape = [&run](const std::vector<std::int64_t>& shape) {
    std::uint64_t elements = 1;
    for (const auto d : shape) elements *= static_cast<std::uint64_t>(d);
    return run.same_size_copy_anchor(4 * elements);
  };
  run.merge_pytorch("activation", "torch_eager", "pytorch:sqrt_x_plus_1",
                    "torch.sqrt(x + 1), fp32 (two kernels)", copy_of_shape);
  run.merge_pytorch_section("compiled", "activation", "torch_compile", copy_of_shape);
  run.merge_pytorch_section("softmax", "softmax", "torch_softmax", copy_of_shape);
  run.print_pytorch_rows("PyTorch (bench_pytorch.py; anchor: a copy of the same bytes)", "shape",
                         "GB/s");
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::harness::bench_main(argc, argv, "lab05_bench", "05_blocks", bench);
}
