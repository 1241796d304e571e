// TMA multicast: each cluster's rank 0 multicasts one A tile to every block
// of its cluster while each block loads its own B tile; the same dot
// products on the emulator (Emu/...) and on the GPU (Gpu/..., skipped
// without an sm_90 GPU). On the emulator a peer that reads the multicast
// tile before waiting on its mbarrier is reported as a race with the copy.
#include <gtest/gtest.h>

#include <vector>

#include "both_backends.hpp"
#include "tma_multicast.hpp"

namespace tma_multicast {
namespace {

using emu_tests::OnBothBackends;
class TmaMulticast
    : public OnBothBackends<Kernels, emulator_kernels, gpu_kernels, gpu_unavailable_reason> {};
EMU_TESTS_ON_BOTH_BACKENDS(TmaMulticast);

std::vector<int> expected(const std::vector<int>& a, const std::vector<int>& b) {
  std::vector<int> dots(b.size() / kTileElements, 0);
  for (std::size_t i = 0; i < b.size(); ++i) dots[i / kTileElements] += a[i % kTileElements] * b[i];
  return dots;
}

TEST_P(TmaMulticast, EveryBlockOfTheClusterGetsTheTileRankZeroMulticasts) {
  for (unsigned cluster : {2u, 4u}) {
    SCOPED_TRACE(testing::Message() << "clusters of " << cluster << " blocks");
    // Two clusters: each multicasts its own copy of A.
    const std::vector<int> a = rng_.uniform<int>(kTileElements, -8, 8);
    const std::vector<int> b = rng_.uniform<int>(kTileElements * cluster * 2, -8, 8);
    EXPECT_EQ(k().dot_with_shared_a(a, b, cluster), expected(a, b));
  }
}

TEST(TmaMulticastEmu, APeerReadingTheTileBeforeItsWaitIsARaceWithTheMulticast) {
  for (unsigned cluster : {2u, 4u}) {
    SCOPED_TRACE(testing::Message() << "clusters of " << cluster << " blocks");
    const PlantedReport r = emulator_report(Planted::peer_reads_before_wait, cluster);
    EXPECT_NE(r.reports.find("intra_block_race: Read of 4 bytes of shared memory"),
              std::string::npos)
        << r.reports;
    EXPECT_NE(r.reports.find("bytes an async copy has not completed (the copy of 1024 bytes"),
              std::string::npos)
        << r.reports;
    EXPECT_NE(r.reports.find("by block (0,0,0) thread (0,0,0) (cluster rank 0, a multicast)"),
              std::string::npos)
        << r.reports;
    EXPECT_NE(r.reports.find("tma_multicast.cuh:"), std::string::npos) << r.reports;
  }
}

TEST(TmaMulticastEmu, TheCorrectKernelHasNoReports) {
  for (unsigned cluster : {2u, 4u}) {
    const PlantedReport r = emulator_report(Planted::none, cluster);
    EXPECT_EQ(r.reports, "");
    EXPECT_FALSE(r.failed_launch);
  }
}

}  // namespace
}  // namespace tma_multicast
