// Lab 03 end to end (no exercise of its own): the student's code alone,
// with none of the reference's parts: the lecture's producer and consumer
// are right and quiet, and the pipeline over 4 streams gives the right bits.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "lab03_test_support.hpp"

namespace lab03 {
namespace {

using OnOwnCode = cudalab::harness::OnBackend<harness::Backend, harness::make_emulator_backend,
                                              harness::make_gpu_backend>;
class EndToEnd : public OnOwnCode {};

TEST_P(EndToEnd, TheLecturesProgramsRunRight) {
  const harness::Consumed pc = backend().producer_consumer(4099, 1.0, 1.0);
  ASSERT_TRUE(cudalab::harness::ran(pc.observation));
  EXPECT_EQ(pc.sum, pc.expected);
  const std::vector<float> in = rng_.uniform(5003, -1.0f, 1.0f);
  const harness::Pipeline p = backend().pipeline(in, 6, 4, 1, false);
  ASSERT_TRUE(cudalab::harness::ran(p.observation));
  for (std::size_t i = 0; i < in.size(); ++i) {
    ASSERT_EQ(p.out[i], std::fmaf(in[i], 0.999f, 0.001f)) << "element " << i;
  }
}

CUDALAB_ON_BOTH_BACKENDS(EndToEnd);

}  // namespace
}  // namespace lab03
