// Warp intrinsics: shuffles, votes, and what happens when lanes are missing.
#include "emu_test_kernels.cuh"
#include "emu_test_support.hpp"

namespace emu_tests {
namespace {

using cudalab::emu::Recording;
using cudalab::emu::ReportKind;

TEST(Warp, ShuffleDownReductionSumsEachWarp) {
  for (int block : {32, 96, 1024}) {
    const int blocks = 5, n = blocks * block;
    std::vector<int> x = random_ints(n, -1000, 1000);
    DeviceBuffer<int> in(x), out(n / 32);
    Recording rec;
    cudalab::launch(warp_sum_down, dim3(blocks), dim3(block), in.data(), out.data());
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_TRUE(rec.clean()) << rec.reports_text();
    std::vector<int> got = out.copy_to_host();
    for (int w = 0; w < n / 32; ++w) {
      int want = 0;
      for (int l = 0; l < 32; ++l) want += x[w * 32 + l];
      ASSERT_EQ(got[w], want) << "warp " << w << " block size " << block;
    }
  }
}

TEST(Warp, XorButterflyGivesEveryLaneTheMaximum) {
  const int n = 7 * 64;
  std::vector<int> x = random_ints(n, -100000, 100000);
  DeviceBuffer<int> in(x), out(n);
  cudalab::launch(warp_max_xor, dim3(7), dim3(64), in.data(), out.data());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<int> got = out.copy_to_host();
  for (int i = 0; i < n; ++i) {
    int want = x[i / 32 * 32];
    for (int l = 0; l < 32; ++l) want = std::max(want, x[i / 32 * 32 + l]);
    ASSERT_EQ(got[i], want) << i;
  }
}

TEST(Warp, ShuffleWidthSegmentsAndShuffleUp) {
  const int n = 64;
  std::vector<int> x = random_ints(n, 0, 1 << 20);
  DeviceBuffer<int> in(x), out(n), up(n);
  cudalab::launch(warp_shfl_segments, dim3(1), dim3(n), in.data(), out.data(), up.data());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<int> got = out.copy_to_host(), got_up = up.copy_to_host();
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(got[i], x[i / 8 * 8 + 3]) << i;                  // lane 3 of its 8-wide segment
    EXPECT_EQ(got_up[i], i % 32 == 0 ? x[i] : x[i - 1]) << i;  // lane 0 keeps its own
  }
}

TEST(Warp, BallotAnyAll) {
  const int n = 4 * 32;
  std::vector<float> x = random_floats(n);
  for (int l = 0; l < 32; ++l) {
    x[64 + l] = 1.0f;   // warp 2: all positive
    x[96 + l] = -1.0f;  // warp 3: none positive
  }
  DeviceBuffer<float> in(x);
  DeviceBuffer<unsigned> ballot(4);
  DeviceBuffer<int> any(4), all(4);
  cudalab::launch(warp_votes, dim3(2), dim3(64), in.data(), ballot.data(), any.data(), all.data());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<unsigned> b = ballot.copy_to_host();
  std::vector<int> a = any.copy_to_host(), l = all.copy_to_host();
  for (int w = 0; w < 4; ++w) {
    unsigned want = 0;
    for (int lane = 0; lane < 32; ++lane) want |= (x[w * 32 + lane] > 0.0f ? 1u : 0u) << lane;
    EXPECT_EQ(b[w], want) << w;
    EXPECT_EQ(a[w], want != 0) << w;
    EXPECT_EQ(l[w], want == 0xffffffffu) << w;
  }
}

TEST(Warp, ShuffleNamingExitedLanesIsAnErrorNotAHang) {
  cudalab::emu::ScopedOptions scoped(quiet());
  const int n = 40;  // the second warp has 8 live lanes, 24 exited
  DeviceBuffer<int> data(random_ints(64, 0, 9));
  Recording rec;
  cudalab::launch(shuffle_after_early_exit, dim3(1), dim3(64), data.data(), n);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
  const auto* r = first_report(rec, ReportKind::warp_collective);
  ASSERT_NE(r, nullptr) << rec.reports_text();
  EXPECT_NE(r->message.find("exited"), std::string::npos) << r->message;
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess) << "the fault is reported once";
}

}  // namespace
}  // namespace emu_tests
