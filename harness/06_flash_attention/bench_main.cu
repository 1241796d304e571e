// lab06_bench: `./lab bench 06`. The lab's attention kernels on the GPU
// against PyTorch's, measured in the same run (bench_pytorch.py):
//   lab_naive_fp32   exercise 1: three kernels, the n x n scores in global memory
//   lab_flash_fp32   exercises 3 and 4: the fused forward, fp32 on CUDA cores
//   lab_flash_bf16   exercise 5: the fused forward on the tensor cores, bf16
//                    q, k, v and o, fp32 statistics
//   lab_flash_backward_fp32  exercise 6: the backward, fp32 on CUDA cores
// TFLOP/s = 4 B H N^2 d / time forward, 2.5 times that backward (five
// matmuls to two), halved for causal (FA2's count); shape [B, H, N, d].
// Anchors: PyTorch's naive attention in fp32 (TF32 off) for the fp32
// forwards, SDPA's flash backend (FA2) for bf16, SDPA's memory-efficient
// backward in fp32; every PyTorch figure is listed. Each version is first
// checked on a small awkward shape as the tests call it, against the fp64 CPU
// reference within the tests' tolerance, and not timed when wrong.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "attention_reference.hpp"
#include "backend.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/harness/bench.hpp"
#include "cudalab/numerics/vectors.hpp"
#include "cudalab/random.hpp"

namespace {

using cudalab::DeviceBuffer;
using cudalab::harness::BenchRun;
using cudalab::harness::passes_check;
using cudalab::harness::what_is_wrong;
using cudalab::numerics::from_bf16_bits;
using cudalab::numerics::to_bf16_bits;
using lab06::harness::Attention;
namespace entry = lab06::harness::entry;

// Keep equal to bench_pytorch.py's SHAPES: {B, H, N, d}.
constexpr int kShapes[][4] = {{4, 16, 4096, 128}};

std::uint64_t attention_flops(const Attention& shape) {
  const std::uint64_t full = 4ull * shape.heads * shape.n * shape.n * shape.d;
  return shape.causal ? full / 2 : full;
}

// The tests' tolerances (tests/06_flash_attention, where they are derived):
// fp32 o and L within 1e-6 + 2e-5 |expected|; bf16 o within (2^-8 + 2^-11)
// max|v| + 2^-8 |expected| (max|v| <= 1 here) and its L within 1e-4 +
// 1e-4 |expected|; a gradient within 5e-5 of its largest element + 1e-6 +
// 1e-4 |expected|.
constexpr cudalab::Tolerance kFp32{1e-6, 2e-5}, kBf16O{0x1p-8 + 0x1p-11, 0x1p-8},
    kBf16L{1e-4, 1e-4};
cudalab::Tolerance gradient_tolerance(std::span<const float> expected) {
  float largest = 0.0f;
  for (const float x : expected) largest = std::max(largest, std::fabs(x));
  return {5e-5 * largest + 1e-6, 1e-4};
}

struct Checked {
  bool naive = true, flash = true, flash_bf16 = true, flash_backward = true;
};

// Each version on 3 heads of n = 157, d = 64, causal and not, through the
// backend's call as the tests make it (outputs start as NaN): which are right.
Checked check(lab06::harness::Backend& gpu, cudalab::Random& rng) {
  Checked ok;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const bool causal : {false, true}) {
    const Attention shape{3, 157, 64, 0.125f, causal};
    const std::string where = causal ? "3 x 157 x 64 causal" : "3 x 157 x 64";
    // bf16-exact inputs, so that the bf16 kernel gets the same values.
    const auto q = from_bf16_bits(to_bf16_bits(rng.uniform(shape.values(), -1.0f, 1.0f)));
    const auto k = from_bf16_bits(to_bf16_bits(rng.uniform(shape.values(), -1.0f, 1.0f)));
    const auto v = from_bf16_bits(to_bf16_bits(rng.uniform(shape.values(), -1.0f, 1.0f)));
    const lab06::harness::Attended want = lab06::harness::reference_attention(shape, q, k, v);
    ok.naive = ok.naive && passes_check("lab_naive_fp32", where, [&] {
                 std::vector<float> o(shape.values(), nan);
                 const auto call = gpu.call(entry::naive_attention, shape, q, k, v,
                                            lab06::harness::Temp<float>{shape.scores()}, o);
                 return what_is_wrong(call, cudalab::compare(o, want.o, kFp32));
               });
    ok.flash = ok.flash && passes_check("lab_flash_fp32", where, [&] {
                 std::vector<float> out(shape.values() + shape.rows(), nan), o_then_lse = want.o;
                 o_then_lse.insert(o_then_lse.end(), want.lse.begin(), want.lse.end());
                 const auto call = gpu.call(entry::flash_forward, shape, q, k, v, out);
                 return what_is_wrong(call, cudalab::compare(out, o_then_lse, kFp32));
               });
    ok.flash_bf16 =
        ok.flash_bf16 && passes_check("lab_flash_bf16", where, [&] {
          const auto q_b = to_bf16_bits(q), k_b = to_bf16_bits(k), v_b = to_bf16_bits(v);
          std::vector<std::uint16_t> o(shape.values(), 0x7fc0);  // NaN
          std::vector<float> lse(shape.rows(), nan);
          const auto call = gpu.call(entry::flash_forward_bf16, shape, q_b, k_b, v_b, o, lse);
          const std::string o_wrong =
              what_is_wrong(call, cudalab::compare(from_bf16_bits(o), want.o, kBf16O));
          return o_wrong.empty() ? what_is_wrong(call, cudalab::compare(lse, want.lse, kBf16L))
                                 : o_wrong;
        });
    // The backward from the reference's o and L, so that it is checked alone.
    ok.flash_backward =
        ok.flash_backward && passes_check("lab_flash_backward_fp32", where, [&] {
          const auto d_o = rng.uniform(shape.values(), -1.0f, 1.0f);
          const auto expected = lab06::harness::reference_attention_backward(shape, q, k, v, d_o);
          std::vector<float> gradients(3 * shape.values(), nan);
          const auto call = gpu.call(entry::flash_backward, shape, q, k, v, want.o, d_o, want.lse,
                                     lab06::harness::Temp<float>{shape.rows()}, gradients);
          const std::vector<float>* wanted[] = {&expected.dq, &expected.dk, &expected.dv};
          std::string wrong;
          for (std::size_t g = 0; g < 3 && wrong.empty(); ++g) {
            const auto got =
                std::span<const float>(gradients).subspan(g * shape.values(), shape.values());
            wrong = what_is_wrong(
                call, cudalab::compare(got, *wanted[g], gradient_tolerance(*wanted[g])));
          }
          return wrong;
        });
  }
  return ok;
}

void bench(BenchRun& run) {
  cudalab::Random rng = cudalab::Random::fresh();
  std::string why_not;
  const auto gpu = lab06::harness::make_gpu_backend(&why_not);
  if (gpu == nullptr) throw std::runtime_error("lab06_bench needs the GPU backend: " + why_not);
  const Checked ok = check(*gpu, rng);
  run.merge_pytorch_throughput("attention");

  // The lab's functions as the GPU build compiled them, on device pointers
  // (flash_forward writes o, then L, in one buffer; flash_backward dq, dk, dv).
  const auto naive_attention = gpu->device_function(entry::naive_attention);
  const auto flash_forward = gpu->device_function(entry::flash_forward);
  const auto flash_forward_bf16 = gpu->device_function(entry::flash_forward_bf16);
  const auto flash_backward = gpu->device_function(entry::flash_backward);
  run.print_header(
      "attention (anchor: PyTorch's naive attention in fp32, TF32 off; for bf16 SDPA's flash "
      "backend; for the backward SDPA's memory-efficient backward in fp32)",
      "B x H x N x d", "TFLOP/s");
  for (const auto& [b, h, n, d] : kShapes) {
    for (const bool causal : {false, true}) {
      const Attention shape{b * h, n, d, 1.0f / std::sqrt(float(d)), causal};
      const std::vector<std::int64_t> dims{b, h, n, d};
      const std::string suffix = causal ? "_causal" : "";
      const auto time = [&](const std::string& version, std::uint64_t flops, std::uint64_t bytes,
                            const std::string& anchor, const std::function<void()>& work) {
        run.print_row(run.add_throughput("attention", version + suffix, dims, flops, bytes,
                                         run.median_ms_cold_l2(work), anchor));
      };
      const std::string anchor = run.pytorch_anchor("torch_naive_fp32" + suffix, dims);
      const auto q_host = rng.uniform(shape.values(), -1.0f, 1.0f);
      const auto k_host = rng.uniform(shape.values(), -1.0f, 1.0f);
      const auto v_host = rng.uniform(shape.values(), -1.0f, 1.0f);
      DeviceBuffer<float> q(q_host), k(k_host), v(v_host);
      // o, then the fused forward's L (the naive and bf16 versions use o's part).
      DeviceBuffer<float> o(shape.values() + shape.rows()), lse(shape.rows());
      const std::uint64_t flops = attention_flops(shape);
      const std::uint64_t bytes = 4 * 4 * shape.values();  // q, k, v read, o written
      if (ok.naive) {
        DeviceBuffer<float> scores(shape.scores());
        time("lab_naive_fp32", flops, bytes, anchor, [&] {
          naive_attention(shape, q.data(), k.data(), v.data(), scores.data(), o.data());
        });
      }
      if (ok.flash) {
        time("lab_flash_fp32", flops, bytes, anchor,
             [&] { flash_forward(shape, q.data(), k.data(), v.data(), o.data()); });
      }
      if (ok.flash_bf16) {
        const std::string flash_anchor = run.pytorch_anchor("torch_sdpa_flash_bf16" + suffix, dims);
        DeviceBuffer<std::uint16_t> q_b(to_bf16_bits(q_host)), k_b(to_bf16_bits(k_host)),
            v_b(to_bf16_bits(v_host)), o_b(shape.values());
        time("lab_flash_bf16", flops, bytes / 2, flash_anchor, [&] {
          flash_forward_bf16(shape, q_b.data(), k_b.data(), v_b.data(), o_b.data(), lse.data());
        });
      }
      if (ok.flash_backward) {
        const std::string backward_anchor =
            run.pytorch_anchor("torch_sdpa_efficient_fp32_backward" + suffix, dims);
        // o and L as the fused forward above left them (its time does not
        // depend on the values, so zeros stand in when it was not run).
        if (!ok.flash) o.fill_bytes(0);
        DeviceBuffer<float> d_o(rng.uniform(shape.values(), -1.0f, 1.0f)), delta(shape.rows());
        DeviceBuffer<float> gradients(3 * shape.values());
        // Five n x n x d matmuls to the forward's two; q, k, v, o and dO
        // read, dq, dk and dv written.
        time("lab_flash_backward_fp32", flops * 5 / 2, 2 * bytes, backward_anchor, [&] {
          flash_backward(shape, q.data(), k.data(), v.data(), o.data(), d_o.data(),
                         o.data() + shape.values(), delta.data(), gradients.data());
        });
      }
    }
  }
  run.print_pytorch_rows("PyTorch (bench_pytorch.py, same run)", "B x H x N x d", "TFLOP/s");
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::harness::bench_main(argc, argv, "lab06_bench", "06_flash_attention", bench);
}
