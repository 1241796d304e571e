// Exercise 1: y = alpha * x for sizes around the block size, on both backends.
#include <gtest/gtest.h>

#include <limits>

#include "backend.hpp"
#include "cudalab/harness/testing.hpp"

namespace lab00 {
namespace {

using OnBackend = cudalab::harness::OnBackend<harness::Backend, harness::make_emulator_backend,
                                              harness::make_gpu_backend>;
class Ex1Scale : public OnBackend {};

TEST_P(Ex1Scale, Ex1_EverySize) {
  for (std::size_t n : {1, 2, 255, 256, 257, 1031}) {
    const std::vector<float> x = rng_.uniform(n, -1.0f, 1.0f);
    const float alpha = rng_.uniform(1, 2.0f, 3.0f)[0];
    std::vector<float> expected(n), y(n, std::numeric_limits<float>::quiet_NaN());
    for (std::size_t i = 0; i < n; ++i) expected[i] = alpha * x[i];
    const std::string what = "scale of " + std::to_string(n) + " elements";
    const auto run = backend().call(harness::entry::scale, y, x, alpha, static_cast<int>(n));
    ASSERT_TRUE(cudalab::harness::ran(run)) << what;
    EXPECT_TRUE(cudalab::harness::matches(y, expected, {}, what));
    EXPECT_TRUE(cudalab::harness::nothing_written_outside(run, what));
  }
}

CUDALAB_ON_BOTH_BACKENDS(Ex1Scale);

}  // namespace
}  // namespace lab00
