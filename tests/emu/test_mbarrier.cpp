// mbarriers and bulk async copies: the same kernels on the emulator
// (Emu/...) and on the GPU (Gpu/..., skipped without an sm_90 GPU) give the
// same values; on the emulator the planted bugs are reported in words, and
// none of them hangs the test.
#include <gtest/gtest.h>

#include <vector>

#include "both_backends.hpp"
#include "mbarrier.hpp"

namespace mbarrier_tests {
namespace {

using emu_tests::OnBothBackends;
class Mbarrier
    : public OnBothBackends<Kernels, emulator_kernels, gpu_kernels, gpu_unavailable_reason> {};
EMU_TESTS_ON_BOTH_BACKENDS(Mbarrier);

std::vector<float> expected(const std::vector<float>& in) {
  std::vector<float> out(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = 2.0f * in[i] + 1.0f;
  return out;
}

TEST_P(Mbarrier, DoubleBufferedBulkCopiesOverAwkwardSizes) {
  // Sizes and chunks (floats, multiples of 4) whose last chunk is partial,
  // with more chunks than stages per block so that every stage is reused.
  struct Case {
    std::size_t n;
    int chunk;
    unsigned blocks, threads;
  };
  for (const Case c : {Case{1000, 96, 2, 64}, Case{4, 4, 1, 32}, Case{1004, 36, 3, 100},
                       Case{4096, 256, 4, 128}, Case{260, 256, 1, 33}}) {
    const std::vector<float> in = rng_.uniform(c.n, -4.0f, 4.0f);
    EXPECT_EQ(k().double_buffered(in, c.chunk, c.blocks, c.threads, Planted::none), expected(in))
        << "n " << c.n << ", chunk " << c.chunk << ", " << c.blocks << " x " << c.threads;
  }
}

TEST_P(Mbarrier, PhasesByParityWithArriveDrop) {
  std::vector<int> want(96, 5);
  want.back() = 0;  // dropped out after arriving once
  EXPECT_EQ(k().phases(96, 5), want);
}

TEST(MbarrierEmu, AReadBeforeTheWaitIsARaceWithTheCopy) {
  const PlantedReport r = emulator_report(Planted::read_before_wait);
  EXPECT_NE(r.reports.find("intra_block_race: Read of 4 bytes of shared memory"), std::string::npos)
      << r.reports;
  EXPECT_NE(r.reports.find("phase 0 of the mbarrier at"), std::string::npos) << r.reports;
  EXPECT_NE(r.reports.find("mbarrier.cuh:"), std::string::npos) << r.reports;
}

TEST(MbarrierEmu, WaitingOnTheWrongParityReadsBytesStillInFlight) {
  const PlantedReport r = emulator_report(Planted::wrong_parity);
  EXPECT_NE(r.reports.find("bytes an async copy has not completed"), std::string::npos)
      << r.reports;
  EXPECT_NE(r.reports.find("intra_block_race: Read of 4 bytes of shared memory"), std::string::npos)
      << r.reports;
}

TEST(MbarrierEmu, AMissingArriveIsAHangReportedInWords) {
  const PlantedReport r = emulator_report(Planted::missing_arrive);
  EXPECT_TRUE(r.failed_launch);
  EXPECT_NE(r.reports.find("; 1 thread(s) (0,0,0) wait on the mbarrier at"), std::string::npos)
      << r.reports;
  EXPECT_NE(r.reports.find("63 of its 64 arrivals came (1 missing)"), std::string::npos)
      << r.reports;
  EXPECT_NE(r.reports.find("would hang"), std::string::npos) << r.reports;
}

TEST(MbarrierEmu, ExpectTxBytesThatNeverComeAreAHangReportedInWords) {
  const PlantedReport r = emulator_report(Planted::wrong_expect_tx);
  EXPECT_TRUE(r.failed_launch);
  EXPECT_NE(r.reports.find("mbarrier: 64 thread(s) "), std::string::npos) << r.reports;
  EXPECT_NE(r.reports.find("1 of its 1 arrivals came"), std::string::npos) << r.reports;
  EXPECT_NE(r.reports.find("expect_tx announced 400 transaction bytes of which 384 completed "
                           "(16 never come)"),
            std::string::npos)
      << r.reports;
}

TEST(MbarrierEmu, TheCorrectKernelIsClean) {
  const PlantedReport r = emulator_report(Planted::none);
  EXPECT_FALSE(r.failed_launch);
  EXPECT_EQ(r.reports, "");
  EXPECT_EQ(r.out, expected(std::vector<float>(1000, 1.5f)));
}

}  // namespace
}  // namespace mbarrier_tests
