// Temporary: the lead's check that the solution runs, until the real tests land.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "backend.hpp"
#include "cudalab/harness/testing.hpp"

namespace lab06 {
namespace {

using OnBackend =
    cudalab::harness::OnBackend<harness::Backend, harness::make_emulator_backend,
                                harness::make_gpu_backend, harness::make_reference_emulator_backend,
                                harness::make_reference_gpu_backend>;

class Smoke : public OnBackend {};

TEST_P(Smoke, Ex3_FlashMatchesNaive) {
  for (bool causal : {false, true}) {
    for (int d : {32, 64, 128}) {
      for (int n : {1, 17, 100}) {
        harness::Attention shape{2, n, d, 1.0f / std::sqrt(float(d)), causal};
        const auto q = rng_.uniform(shape.values(), -1.0f, 1.0f);
        const auto k = rng_.uniform(shape.values(), -1.0f, 1.0f);
        const auto v = rng_.uniform(shape.values(), -1.0f, 1.0f);
        std::vector<float> o(shape.values(), 7.0f), out(shape.values() + shape.rows(), 7.0f);
        auto a = backend().naive_attention(shape, q, k, v, o);
        auto b = backend().flash_forward(shape, q, k, v, out, {.trace = true});
        ASSERT_FALSE(a.failed()) << a.error;
        ASSERT_FALSE(b.failed()) << b.error;
        for (auto& r : b.reports) ADD_FAILURE() << r;
        double worst = 0;
        for (std::size_t i = 0; i < o.size(); ++i) worst = std::max(worst, double(std::fabs(o[i] - out[i])));
        EXPECT_LT(worst, 1e-5) << n << " " << d << " " << causal;
        if (b.stores) {
          EXPECT_EQ(b.stores->bytes, 4 * (shape.values() + shape.rows()));
        }
      }
    }
  }
}

CUDALAB_ON_BOTH_BACKENDS(Smoke);

}  // namespace
}  // namespace lab06
