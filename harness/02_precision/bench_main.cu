// lab02_bench: `./lab bench 02`. Times C = A B (row-major, A m x k, B k x n,
// uniform in [-1, 1)) in the five cuBLAS modes, the student's tensor-core
// GEMMs against cuBLAS on the same shape, and PyTorch's matmul under its
// flags (bench_pytorch.py), all in one run; then each mode's error against K.
// TFLOP/s = 2 m n k / time; bytes = A and B read once in the mode's input
// type + C written once. Errors are normwise against the fp64 product over
// 64 sampled rows of C (all 256 for the error-vs-K figures). A student GEMM
// is first checked as Ex5_SmallIntegersExactly checks it (the function that
// is then timed, on device operands), and not timed when wrong. The Hopper GEMM (exercise 7) takes
// B stored transposed (n x k), as its cuBLAS anchor ("TN") then does; it runs only on an sm_90 GPU.
#include <array>
#include <cstdint>
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
#include "cudalab/harness/gpu_probe.hpp"
#include "cudalab/numerics/vectors.hpp"
#include "cudalab/random.hpp"

namespace {

using cudalab::DeviceBuffer;
using cudalab::blas::ElementType;
using cudalab::blas::GemmTypes;
using cudalab::blas::MathMode;
using cudalab::harness::BenchRun;
using cudalab::harness::gemm_bytes;
using cudalab::harness::gemm_flops;
using cudalab::harness::sample_product;
using cudalab::harness::SampledProduct;

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

// bench_pytorch.py times torch.matmul on the same shapes.
constexpr int kCublasShapes[][3] = {{8192, 8192, 8192}, {10240, 10240, 10240}};
constexpr int kStudentSizes[] = {4096, 8192};
constexpr int kErrorSide = 256;  // m = n of the error-vs-K figures
constexpr int kErrorKs[] = {256, 1024, 4096, 16384, 65536};
constexpr int kSampledRows = 64;

std::vector<float> transposed(const std::vector<float>& matrix, int rows, int cols) {
  std::vector<float> t(matrix.size());
  for (std::size_t i = 0; i < matrix.size(); ++i) t[(i % cols) * rows + i / cols] = matrix[i];
  return t;
}

// A and B on the host (fp32) and on the device in each input type, and B
// stored transposed (n x k) in bf16.
struct Operands {
  int m, n, k;
  std::vector<float> a, b;
  DeviceBuffer<std::uint16_t> b_transposed_bf16{
      cudalab::numerics::to_bf16_bits(transposed(b, k, n))};
  DeviceBuffer<float> a_fp32{a}, b_fp32{b};
  DeviceBuffer<std::uint16_t> a_fp16{cudalab::numerics::to_fp16_bits(a)},
      b_fp16{cudalab::numerics::to_fp16_bits(b)}, a_bf16{cudalab::numerics::to_bf16_bits(a)},
      b_bf16{cudalab::numerics::to_bf16_bits(b)};

  const void* a_as(ElementType type) const { return pick(type, a_fp32, a_fp16, a_bf16); }
  const void* b_as(ElementType type) const { return pick(type, b_fp32, b_fp16, b_bf16); }
  static const void* pick(ElementType type, const DeviceBuffer<float>& fp32,
                          const DeviceBuffer<std::uint16_t>& fp16,
                          const DeviceBuffer<std::uint16_t>& bf16) {
    if (type == ElementType::fp32) return fp32.data();
    return type == ElementType::fp16 ? fp16.data() : bf16.data();
  }
};

Operands uniform_operands(cudalab::Random& rng, int m, int n, int k) {
  return {m, n, k, rng.uniform(static_cast<std::size_t>(m) * k, -1.0f, 1.0f),
          rng.uniform(static_cast<std::size_t>(k) * n, -1.0f, 1.0f)};
}

// With `b_transposed`, B as stored n x k (bf16).
void cublas_gemm(cudalab::blas::Handle& handle, const BlasVersion& v, const Operands& x, void* c,
                 bool b_transposed = false) {
  const void* b = b_transposed ? x.b_transposed_bf16.data() : x.b_as(v.types.inputs);
  cudalab::blas::gemm_row_major(handle, x.m, x.n, x.k, x.a_as(v.types.inputs), b, c, v.types,
                                v.math, b_transposed);
}

// Rows of C sampled for the error (every row of a small C) and their exact values.
SampledProduct sample(const Operands& x) {
  return sample_product(x.a, x.b, x.m, x.n, x.k, x.m > kErrorSide ? kSampledRows : x.m);
}

// Times `gemm` (C of `types.output`) on x and adds the figure, with its error over `sampled`.
void time_gemm(BenchRun& run, const char* name, const char* version, const Operands& x,
               const SampledProduct& sampled, GemmTypes types, const std::string& anchor,
               const std::function<void(void* c)>& gemm) {
  DeviceBuffer<float> c(static_cast<std::size_t>(x.m) * x.n);  // fp16 C uses half of it
  const double ms = run.median_ms_cold_l2([&] { gemm(c.data()); });
  CUDA_CHECK(cudaDeviceSynchronize());
  run.print_row(run.add_throughput(
      name, version, {x.m, x.n, x.k}, gemm_flops(x.m, x.n, x.k), gemm_bytes(x.m, x.n, x.k, types),
      ms, anchor, cudalab::harness::sampled_error(c.data(), types.output, x.n, sampled)));
}

void time_cublas_modes(BenchRun& run, const char* name, cudalab::blas::Handle& handle,
                       const Operands& x) {
  const SampledProduct sampled = sample(x);
  for (const BlasVersion& v : kBlas) {
    time_gemm(run, name, v.version, x, sampled, v.types, "",
              [&](void* c) { cublas_gemm(handle, v, x, c); });
  }
}

std::string shape_text(int m, int n, int k) {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

// A student GEMM on device operands, and cuBLAS in the same arithmetic and
// layout (its anchor).
struct Student {
  const char* version;
  const BlasVersion& anchor;
  bool hopper;  // B stored transposed, k a multiple of 8, an sm_90 GPU only
  std::function<void(const Operands&, float* c)> gemm;
};

// The lab's GEMMs as `lab` (a backend's build of the lab code) has them.
std::array<Student, 3> students_of(lab02::harness::Backend& lab) {
  namespace entry = lab02::harness::entry;
  const auto tc_gemm_fp16 = lab.device_function(entry::tc_gemm_fp16);
  const auto tc_gemm_tf32 = lab.device_function(entry::tc_gemm_tf32);
  const auto hopper_gemm_bf16 = lab.device_function(entry::hopper_gemm_bf16);
  return {{{"tc_gemm_fp16", kBlas[2], false,
            [=](const Operands& x, float* c) {
              tc_gemm_fp16(x.a_fp16.data(), x.b_fp16.data(), c, x.m, x.n, x.k);
            }},
           {"tc_gemm_tf32", kBlas[1], false,
            [=](const Operands& x, float* c) {
              tc_gemm_tf32(x.a_fp32.data(), x.b_fp32.data(), c, x.m, x.n, x.k);
            }},
           {"hopper_gemm_bf16", kBlas[3], true, [=](const Operands& x, float* c) {
              hopper_gemm_bf16(x.a_bf16.data(), x.b_transposed_bf16.data(), c, x.m, x.n, x.k, 0);
            }}}};
}

// The tests' exact check: integers in [-4, 4], so that every product and sum
// is exact in fp16, bf16, TF32 and fp32, at 133 x 71 x 97 (partial tiles
// everywhere; k = 96 for the Hopper GEMM, which takes multiples of 8); C
// starts as NaN, so an element left unwritten fails.
bool passes_exact_check(const Student& student, cudalab::Random& rng) {
  const auto integers = [&](std::size_t count) {
    const std::vector<int> values = rng.uniform(count, -4, 4);
    return std::vector<float>(values.begin(), values.end());
  };
  const int m = 133, n = 71, k = student.hopper ? 96 : 97;
  const Operands x{m, n, k, integers(m * k), integers(k * n)};
  return cudalab::harness::passes_check(student.version, shape_text(m, n, k), [&] {
    DeviceBuffer<float> c(std::vector<float>(m * n, std::numeric_limits<float>::quiet_NaN()));
    student.gemm(x, c.data());
    CUDA_CHECK(cudaDeviceSynchronize());
    return cudalab::harness::what_is_wrong(
        {}, cudalab::compare(c.copy_to_host(), sample_product(x.a, x.b, m, n, k, m).exact, {0, 0}));
  });
}

void bench_students(BenchRun& run, cudalab::blas::Handle& handle, cudalab::Random& rng) {
  std::string why_not;
  const auto gpu = lab02::harness::make_gpu_backend(&why_not);
  if (gpu == nullptr) throw std::runtime_error("lab02_bench needs the GPU backend: " + why_not);
  run.print_header("your tensor-core GEMMs against cuBLAS on the same shape (the anchor)",
                   "m x n x k", "TFLOP/s", true);
  std::string not_hopper;
  const bool on_hopper = cudalab::harness::gpu_runs_sm90a(&not_hopper);
  for (const Student& student : students_of(*gpu)) {
    if (student.hopper && !on_hopper) {
      run.add_note(std::string(student.version) + " not timed: " + not_hopper);
      continue;
    }
    if (!passes_exact_check(student, rng)) continue;
    for (const int size : kStudentSizes) {
      const Operands x = uniform_operands(rng, size, size, size);
      // The anchor: cuBLAS timed here, so it shares the run and the inputs.
      const BlasVersion& v = student.anchor;
      DeviceBuffer<float> c(static_cast<std::size_t>(size) * size);
      const double blas_ms =
          run.median_ms_cold_l2([&] { cublas_gemm(handle, v, x, c.data(), student.hopper); });
      const std::string shape = shape_text(size, size, size), how = v.how;
      const std::string anchor = run.add_throughput_anchor(
          std::string(v.version) + "@" + shape, gemm_flops(size, size, size), blas_ms,
          "cudalab::blas::gemm (cublasGemmEx, " + how +
              (student.hopper ? ", B transposed as stored (TN)" : "") + "), " + shape +
              ", median of " + std::to_string(run.repeats()) + ", L2 flushed");
      time_gemm(run, "gemm", student.version, x, sample(x), v.types, anchor,
                [&](void* c) { student.gemm(x, static_cast<float*>(c)); });
    }
  }
}

void bench(BenchRun& run) {
  cudalab::Random rng = cudalab::Random::fresh();
  cudalab::blas::Handle handle;
  run.print_header("cuBLAS, five modes (errors over 64 sampled rows of C)", "m x n x k", "TFLOP/s",
                   true);
  for (const auto& [m, n, k] : kCublasShapes) {
    time_cublas_modes(run, "gemm", handle, uniform_operands(rng, m, n, k));
  }
  bench_students(run, handle, rng);
  run.print_header("error against K, cuBLAS (m = n = 256, every row of C)", "m x n x k", "TFLOP/s",
                   true);
  for (const int k : kErrorKs) {
    time_cublas_modes(run, "error_vs_k", handle, uniform_operands(rng, kErrorSide, kErrorSide, k));
  }
  run.merge_pytorch_throughput("gemm");
  run.print_pytorch_rows("PyTorch torch.matmul (bench_pytorch.py; fp16/bf16 C as torch returns it)",
                         "m x n x k", "TFLOP/s", true);
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::harness::bench_main(argc, argv, "lab02_bench", "02_precision", bench);
}
