// lab06_bench: `./lab bench 06`. The lab's attention kernels on the GPU
// against PyTorch's, measured in the same run (bench_pytorch.py):
//   lab_naive_fp32   exercise 1: three kernels, the n x n scores in global memory
//   lab_flash_fp32   exercises 3 and 4: the fused forward, fp32 on CUDA cores
//   lab_flash_bf16   exercise 5: the fused forward on the tensor cores, bf16
//                    q, k, v and o, fp32 statistics
//   lab_flash_backward_fp32  exercise 6: the backward, fp32 on CUDA cores
// TFLOP/s = 4 B H N^2 d / time for the forward, 2.5 times that for the
// backward (its five matmuls to the forward's two), halved for causal (FA2's
// count); shape [B, H, N, d]. The fp32 forward figures' anchor is PyTorch's
// naive attention in fp32 (TF32 off) on the same shape; the bf16 figure's is
// SDPA's flash backend (FA2) in bf16; the backward's is SDPA's
// memory-efficient backward in fp32; every PyTorch figure is listed. Each version
// is first checked on a small awkward shape against a double-precision CPU
// reference; a wrong one is reported and not timed.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "attention_reference.hpp"
#include "backend.hpp"
#include "cudalab/check.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/harness/bench.hpp"
#include "cudalab/numerics/formats.hpp"
#include "cudalab/random.hpp"

namespace {

using cudalab::DeviceBuffer;
using cudalab::harness::BenchRun;
using lab06::harness::Attention;
namespace entry = lab06::harness::entry;

// The lab's functions as the GPU build compiled them, on device pointers.
struct Lab {
  explicit Lab(const lab06::harness::Backend& gpu)
      : naive_attention(gpu.device_function(entry::naive_attention)),
        flash_forward(gpu.device_function(entry::flash_forward)),
        flash_forward_bf16(gpu.device_function(entry::flash_forward_bf16)),
        flash_backward(gpu.device_function(entry::flash_backward)) {}
  cudalab::harness::DeviceOf<entry::naive_attention> naive_attention;
  cudalab::harness::DeviceOf<entry::flash_forward> flash_forward;  // o, then L, in one buffer
  cudalab::harness::DeviceOf<entry::flash_forward_bf16> flash_forward_bf16;
  cudalab::harness::DeviceOf<entry::flash_backward> flash_backward;  // dq, dk, dv in one buffer
};

// Keep equal to bench_pytorch.py's SHAPES: {B, H, N, d}.
constexpr int kShapes[][4] = {{4, 16, 4096, 128}};

std::uint64_t attention_flops(const Attention& shape) {
  const std::uint64_t full = 4ull * shape.heads * shape.n * shape.n * shape.d;
  return shape.causal ? full / 2 : full;
}

// dV = P^T dO, dP = dO V^T, dS's product with K and with Q, and S again:
// five n x n x d matmuls to the forward's two.
std::uint64_t attention_backward_flops(const Attention& shape) {
  return attention_flops(shape) * 5 / 2;
}

// Runs each lab version on 3 heads of n = 157, d = 64 (causal and not)
// and says which are right.
struct Checked {
  bool naive = true, flash = true, flash_bf16 = true, flash_backward = true;
};

std::vector<std::uint16_t> to_bf16(const std::vector<float>& x) {
  std::vector<std::uint16_t> bits(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) bits[i] = cudalab::numerics::fp32_to_bf16_bits(x[i]);
  return bits;
}

std::vector<float> from_bf16(const std::vector<std::uint16_t>& bits) {
  std::vector<float> x(bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i)
    x[i] = cudalab::numerics::bf16_bits_to_fp32(bits[i]);
  return x;
}

Checked check(const Lab& lab, cudalab::Random& rng) {
  Checked ok;
  for (const bool causal : {false, true}) {
    const Attention shape{3, 157, 64, 0.125f, causal};
    // bf16-exact inputs, so that the bf16 kernel gets the same values.
    const auto q = from_bf16(to_bf16(rng.uniform(shape.values(), -1.0f, 1.0f)));
    const auto k = from_bf16(to_bf16(rng.uniform(shape.values(), -1.0f, 1.0f)));
    const auto v = from_bf16(to_bf16(rng.uniform(shape.values(), -1.0f, 1.0f)));
    const std::vector<float> want = lab06::harness::reference_attention(shape, q, k, v).o;
    DeviceBuffer<float> q_d(q), k_d(k), v_d(v), o(shape.values()), lse(shape.rows());
    DeviceBuffer<float> o_and_lse(shape.values() + shape.rows()), scores(shape.scores());
    const auto worst = [&](const std::vector<float>& got) {
      double e = 0;
      for (std::size_t i = 0; i < got.size(); ++i) {
        const double d = std::fabs(got[i] - want[i]);
        if (!(d <= e)) e = d;  // NaN sticks
      }
      return e;
    };
    const auto verdict = [&](const char* version, const std::vector<float>& got, double tolerance,
                             bool& good) {
      const double error = worst(got);
      if (error <= tolerance) return;
      good = false;
      std::printf("%-28s WRONG RESULT on 3 x 157 x 64%s (error %.3g): not timed\n", version,
                  causal ? " causal" : "", error);
    };
    lab.naive_attention(shape, q_d.data(), k_d.data(), v_d.data(), scores.data(), o.data());
    CUDA_CHECK(cudaDeviceSynchronize());
    verdict("lab_naive_fp32", o.copy_to_host(), 1e-4, ok.naive);
    lab.flash_forward(shape, q_d.data(), k_d.data(), v_d.data(), o_and_lse.data());
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> flash_o = o_and_lse.copy_to_host();
    flash_o.resize(shape.values());
    verdict("lab_flash_fp32", flash_o, 1e-4, ok.flash);
    DeviceBuffer<std::uint16_t> q_b(to_bf16(q)), k_b(to_bf16(k)), v_b(to_bf16(v)),
        o_b(shape.values());
    lab.flash_forward_bf16(shape, q_b.data(), k_b.data(), v_b.data(), o_b.data(), lse.data());
    CUDA_CHECK(cudaDeviceSynchronize());
    // P is rounded to bf16 before P V, and o to bf16: a few bf16 ulps of |o| < 1.
    verdict("lab_flash_bf16", from_bf16(o_b.copy_to_host()), 2e-2, ok.flash_bf16);

    // The backward from the reference's o and L, so that it is checked alone;
    // each gradient within 1e-4 of its largest element (the tests allow
    // 5e-5 of it plus 1e-4 of the element).
    const lab06::harness::Attended forward = lab06::harness::reference_attention(shape, q, k, v);
    const auto d_o = rng.uniform(shape.values(), -1.0f, 1.0f);
    const lab06::harness::AttentionGradients expected =
        lab06::harness::reference_attention_backward(shape, q, k, v, d_o);
    DeviceBuffer<float> o_ref(forward.o), lse_ref(forward.lse), d_o_d(d_o), delta(shape.rows());
    DeviceBuffer<float> gradients(3 * shape.values());
    lab.flash_backward(shape, q_d.data(), k_d.data(), v_d.data(), o_ref.data(), d_o_d.data(),
                       lse_ref.data(), delta.data(), gradients.data());
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<float> got = gradients.copy_to_host();
    double error = 0;  // of the largest element, the worst of the three
    for (const auto& [first, want] :
         {std::pair{std::size_t{0}, &expected.dq}, std::pair{shape.values(), &expected.dk},
          std::pair{2 * shape.values(), &expected.dv}}) {
      double largest = 0, worst_here = 0;
      for (std::size_t i = 0; i < want->size(); ++i) {
        largest = std::max(largest, std::fabs(double((*want)[i])));
        const double d = std::fabs(double(got[first + i]) - (*want)[i]);
        if (!(d <= worst_here)) worst_here = d;  // NaN sticks
      }
      const double relative = worst_here / largest;
      if (!(relative <= error)) error = relative;
    }
    if (!(error <= 1e-4)) {
      ok.flash_backward = false;
      std::printf("%-28s WRONG RESULT on 3 x 157 x 64%s (error %.3g of the largest): not timed\n",
                  "lab_flash_backward_fp32", causal ? " causal" : "", error);
    }
  }
  return ok;
}

void print_row(const cudalab::Figure& f) {
  char fraction[32] = "-";
  if (f.fraction_of) std::snprintf(fraction, sizeof fraction, "%.2f", f.fraction_of->value);
  std::string shape;
  for (const auto d : f.shape) shape += (shape.empty() ? "" : "x") + std::to_string(d);
  std::printf("%-34s %16s %10.3f %10.1f %10s\n", f.version.c_str(), shape.c_str(), f.time_ms,
              f.value, fraction);
}

// PyTorch's figure `version` on `shape` as an anchor; "" when the run has none.
std::string torch_anchor(BenchRun& run, const std::string& version,
                         const std::vector<std::int64_t>& shape) {
  for (const cudalab::Figure& f : run.result().figures) {
    if (f.version != version || f.shape != shape) continue;
    cudalab::Anchor anchor;
    anchor.name = "pytorch:" + version;
    anchor.value = f.value;
    anchor.unit = "TFLOP/s";
    anchor.time_ms = f.time_ms;
    anchor.source = "bench_pytorch.py in the same run, median of " + std::to_string(run.repeats()) +
                    ", L2 flushed";
    run.result().add_anchor(anchor);
    return anchor.name;
  }
  return "";
}

void bench(BenchRun& run) {
  cudalab::Random rng = cudalab::Random::fresh();
  std::string why_not;
  const auto gpu = lab06::harness::make_gpu_backend(&why_not);
  if (gpu == nullptr) throw std::runtime_error("lab06_bench needs the GPU backend: " + why_not);
  const Lab lab(*gpu);
  const Checked ok = check(lab, rng);
  run.merge_pytorch_throughput("attention");

  std::printf(
      "\nattention (anchor: PyTorch's naive attention in fp32, TF32 off; for bf16 SDPA's flash "
      "backend; for the backward SDPA's memory-efficient backward in fp32)\n");
  std::printf("%-34s %16s %10s %10s %10s\n", "version", "B x H x N x d", "ms", "TFLOP/s",
              "of anchor");
  for (const auto& [b, h, n, d] : kShapes) {
    for (const bool causal : {false, true}) {
      const Attention shape{b * h, n, d, 1.0f / std::sqrt(float(d)), causal};
      const std::vector<std::int64_t> dims{b, h, n, d};
      const std::string suffix = causal ? "_causal" : "";
      const std::string anchor = torch_anchor(run, "torch_naive_fp32" + suffix, dims);
      DeviceBuffer<float> q(rng.uniform(shape.values(), -1.0f, 1.0f));
      DeviceBuffer<float> k(rng.uniform(shape.values(), -1.0f, 1.0f));
      DeviceBuffer<float> v(rng.uniform(shape.values(), -1.0f, 1.0f));
      // o, then the fused forward's L (the naive and bf16 versions use o's part).
      DeviceBuffer<float> o(shape.values() + shape.rows()), lse(shape.rows());
      float* const o_lse = o.data() + shape.values();
      const std::uint64_t flops = attention_flops(shape);
      const std::uint64_t bytes = 4 * 4 * shape.values();  // q, k, v read, o written
      if (ok.naive) {
        DeviceBuffer<float> scores(shape.scores());
        const double ms = run.median_ms_cold_l2([&] {
          lab.naive_attention(shape, q.data(), k.data(), v.data(), scores.data(), o.data());
        });
        print_row(run.add_throughput("attention", "lab_naive_fp32" + suffix, dims, flops, bytes, ms,
                                     anchor));
      }
      if (ok.flash) {
        const double ms = run.median_ms_cold_l2(
            [&] { lab.flash_forward(shape, q.data(), k.data(), v.data(), o.data()); });
        print_row(run.add_throughput("attention", "lab_flash_fp32" + suffix, dims, flops, bytes, ms,
                                     anchor));
      }
      if (ok.flash_bf16) {
        const std::string flash_anchor = torch_anchor(run, "torch_sdpa_flash_bf16" + suffix, dims);
        DeviceBuffer<std::uint16_t> q_b(to_bf16(q.copy_to_host())), k_b(to_bf16(k.copy_to_host())),
            v_b(to_bf16(v.copy_to_host())), o_b(shape.values());
        const double ms = run.median_ms_cold_l2([&] {
          lab.flash_forward_bf16(shape, q_b.data(), k_b.data(), v_b.data(), o_b.data(), lse.data());
        });
        print_row(run.add_throughput("attention", "lab_flash_bf16" + suffix, dims, flops, bytes / 2,
                                     ms, flash_anchor));
      }
      if (ok.flash_backward) {
        const std::string backward_anchor =
            torch_anchor(run, "torch_sdpa_efficient_fp32_backward" + suffix, dims);
        // o and L as the fused forward above left them (its time does not
        // depend on the values, so zeros stand in when it was not run).
        if (!ok.flash) o.fill_bytes(0);
        DeviceBuffer<float> d_o(rng.uniform(shape.values(), -1.0f, 1.0f)), delta(shape.rows());
        DeviceBuffer<float> gradients(3 * shape.values());
        const double ms = run.median_ms_cold_l2([&] {
          lab.flash_backward(shape, q.data(), k.data(), v.data(), o.data(), d_o.data(), o_lse,
                             delta.data(), gradients.data());
        });
        // q, k, v, o and dO read, dq, dk and dv written.
        print_row(run.add_throughput("attention", "lab_flash_backward_fp32" + suffix, dims,
                                     attention_backward_flops(shape), 2 * bytes, ms,
                                     backward_anchor));
      }
    }
  }
  bool printed = false;
  for (const cudalab::Figure& f : run.result().figures) {
    if (f.version.rfind("torch_", 0) != 0) continue;
    if (!printed) std::printf("\nPyTorch (bench_pytorch.py, same run)\n");
    printed = true;
    print_row(f);
  }
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::harness::bench_main(argc, argv, "lab06_bench", "06_flash_attention", bench);
}
