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
    warp_sum_down<<<dim3(blocks), dim3(block)>>>(in.data(), out.data());
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
  warp_max_xor<<<dim3(7), dim3(64)>>>(in.data(), out.data());
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
  warp_shfl_segments<<<dim3(1), dim3(n)>>>(in.data(), out.data(), up.data());
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
  warp_votes<<<dim3(2), dim3(64)>>>(in.data(), ballot.data(), any.data(), all.data());
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

TEST(Warp, ShuffleReadingAnExitedLaneIsAnErrorNotAHang) {
  cudalab::emu::ScopedOptions scoped(quiet());
  const int n = 40;  // the second warp has 8 live lanes, 24 exited
  std::vector<int> x = random_ints(64, 0, 9);
  DeviceBuffer<int> data(x);
  Recording rec;
  shuffle_after_early_exit<<<dim3(1), dim3(64)>>>(data.data(), n);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
  ASSERT_EQ(rec.reports().size(), 1u) << rec.reports_text();
  const auto* r = first_report(rec, ReportKind::warp_collective);
  ASSERT_NE(r, nullptr) << rec.reports_text();
  EXPECT_NE(r->message.find("lane 7 reads lane 8, which has already exited"), std::string::npos)
      << r->message;
  EXPECT_EQ(r->where.thread.x, 39u);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess) << "the fault is reported once";
  // The lanes whose source is live still got their neighbour's value.
  std::vector<int> got = data.copy_to_host();
  for (int i = 32; i < 39; ++i) EXPECT_EQ(got[i], x[i] + x[i + 1]) << i;
}

// Warp 0: lanes 0-7 exit before the others arrive. Warp 1: lanes 24-31 exit
// after the others wait. Warp 2: one exited lane, every live value odd, so
// __all_sync is true over the lanes that have not exited.
TEST(Warp, FullMaskCollectivesNeedOnlyTheLanesThatHaveNotExited) {
  std::vector<int> x = random_ints(96, 0, 1000);
  for (int lane = 0; lane < 8; ++lane) x[lane] = -1;
  for (int lane = 24; lane < 32; ++lane) x[32 + lane] = -1;
  for (int lane = 0; lane < 32; ++lane) x[64 + lane] = 2 * lane + 1;
  x[64 + 5] = -1;
  DeviceBuffer<int> in(x);
  DeviceBuffer<unsigned> out(3 * 96);
  out.fill_bytes(0);
  Recording rec;
  votes_after_some_lanes_exit<<<dim3(1), dim3(96)>>>(in.data(), out.data());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_TRUE(rec.clean()) << rec.reports_text();
  std::vector<unsigned> got = out.copy_to_host();
  for (int w = 0; w < 3; ++w) {
    unsigned live = 0, odd = 0;
    for (int lane = 0; lane < 32; ++lane) {
      const int v = x[32 * w + lane];
      if (v >= 0) live |= 1u << lane;
      if (v >= 0 && v % 2) odd |= 1u << lane;
    }
    for (int lane = 0; lane < 32; ++lane) {
      if (!(live >> lane & 1u)) continue;
      const int i = 32 * w + lane;
      EXPECT_EQ(got[3 * i], odd) << "ballot, warp " << w << " lane " << lane;
      EXPECT_EQ(got[3 * i + 1], odd == live ? 1u : 0u) << "all, warp " << w << " lane " << lane;
      EXPECT_EQ(got[3 * i + 2], odd != 0 ? 1u : 0u) << "any, warp " << w << " lane " << lane;
    }
  }
  EXPECT_EQ(got[3 * (64 + 5) + 1], 0u) << "the exited lane wrote nothing";
}

TEST(Warp, StuckCollectiveNamesTheLanesThatNeverArrivedNotTheExitedOnes) {
  cudalab::emu::ScopedOptions scoped(quiet());
  DeviceBuffer<int> data(32);
  data.fill_bytes(0);
  Recording rec;
  collectives_waiting_on_each_other<<<dim3(1), dim3(32)>>>(data.data());
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
  const auto* r = first_report(rec, ReportKind::warp_collective);
  ASSERT_NE(r, nullptr) << rec.reports_text();
  EXPECT_NE(r->message.find("8 lane(s) (8,0,0), (9,0,0), (10,0,0), (11,0,0) and 4 more wait in "
                            "__syncwarp"),
            std::string::npos)
      << r->message;
  EXPECT_NE(r->message.find("for 16 lane(s) (16,0,0), (17,0,0), (18,0,0), (19,0,0) and 12 more "
                            "that never arrive: they wait in another warp collective"),
            std::string::npos)
      << r->message;
  EXPECT_EQ(r->message.find("(0,0,0)"), std::string::npos) << "lane 0 exited: " << r->message;
}

}  // namespace
}  // namespace emu_tests
