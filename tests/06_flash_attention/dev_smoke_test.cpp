// Temporary: the lead's check that the solution runs, until the real tests land.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "backend.hpp"
#include "cudalab/harness/testing.hpp"
#include "cudalab/numerics/formats.hpp"

namespace lab06 {
namespace {

using OnBackend =
    cudalab::harness::OnBackend<harness::Backend, harness::make_emulator_backend,
                                harness::make_gpu_backend, harness::make_reference_emulator_backend,
                                harness::make_reference_gpu_backend>;

class Smoke : public OnBackend {};

TEST_P(Smoke, Ex5_Bf16MatchesFp32) {
  using cudalab::numerics::bf16_bits_to_fp32;
  using cudalab::numerics::fp32_to_bf16_bits;
  for (bool causal : {false, true}) {
    for (int d : {32, 64, 128}) {
      for (int n : {1, 17, 100, 130}) {
        harness::Attention shape{2, n, d, 1.0f / std::sqrt(float(d)), causal};
        std::vector<std::uint16_t> qb(shape.values()), kb(shape.values()), vb(shape.values());
        std::vector<float> q(shape.values()), k(shape.values()), v(shape.values());
        for (std::size_t i = 0; i < shape.values(); ++i) {
          qb[i] = fp32_to_bf16_bits(rng_.uniform(1, -1.0f, 1.0f)[0]);
          kb[i] = fp32_to_bf16_bits(rng_.uniform(1, -1.0f, 1.0f)[0]);
          vb[i] = fp32_to_bf16_bits(rng_.uniform(1, -1.0f, 1.0f)[0]);
          q[i] = bf16_bits_to_fp32(qb[i]);
          k[i] = bf16_bits_to_fp32(kb[i]);
          v[i] = bf16_bits_to_fp32(vb[i]);
        }
        std::vector<float> out(shape.values() + shape.rows(), 7.0f), lse(shape.rows(), 7.0f);
        std::vector<std::uint16_t> o(shape.values(), 0x7fc1);
        auto a = backend().flash_forward(shape, q, k, v, out);
        auto b = backend().flash_forward_bf16(shape, qb, kb, vb, o, lse);
        ASSERT_FALSE(a.failed()) << a.error;
        ASSERT_FALSE(b.failed()) << b.error;
        for (auto& r : b.reports) ADD_FAILURE() << r;
        double worst = 0, worst_l = 0;
        for (std::size_t i = 0; i < o.size(); ++i) {
          const double e = std::fabs(bf16_bits_to_fp32(o[i]) - out[i]);
          if (!(e <= worst)) worst = e;
        }
        for (std::size_t i = 0; i < lse.size(); ++i) {
          const double e = std::fabs(lse[i] - out[shape.values() + i]);
          if (!(e <= worst_l)) worst_l = e;
        }
        EXPECT_LT(worst, 2e-2) << n << " " << d << " " << causal;
        EXPECT_LT(worst_l, 1e-4) << n << " " << d << " " << causal;
      }
    }
  }
}

CUDALAB_ON_BOTH_BACKENDS(Smoke);

}  // namespace
}  // namespace lab06
