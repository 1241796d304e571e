// mbarriers and bulk async copies: the same kernels on the emulator
// (Emu/...) and on the GPU (Gpu/..., skipped without an sm_90 GPU) give the
// same values; on the emulator the planted bugs are reported in words, and
// none of them hangs the test.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "both_backends.hpp"
#include "cudalab/emu/recorder.hpp"
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

// What a Recording keeps of block 0 of the double-buffered kernel (2 blocks
// of 64 threads, 1000 floats in chunks of 96: block 0 takes chunks 0, 2,
// ..., 10): the four barriers' inits, a bulk copy per chunk that lands
// before the phase of its "full" barrier completes, and every wait ended by
// the phase it waited for; the same in the JSON export.
TEST(MbarrierEmu, TheRecordingKeepsTheBarriersAndCopiesInOrder) {
  using cudalab::emu::AsyncEvent;
  using Kind = cudalab::emu::AsyncEventKind;
  cudalab::emu::Recording rec;
  emulator_kernels().double_buffered(std::vector<float>(1000, 1.5f), 96, 2, 64, Planted::none);
  const cudalab::emu::LaunchRecord& launch = rec.launches().front();
  std::vector<AsyncEvent> block0;
  for (const AsyncEvent& e : launch.async_events)
    if (e.block == 0) block0.push_back(e);
  auto count = [&](Kind kind) {
    return std::count_if(block0.begin(), block0.end(),
                         [&](const AsyncEvent& e) { return e.kind == kind; });
  };
  EXPECT_EQ(count(Kind::barrier_init), 4);
  EXPECT_EQ(count(Kind::copy_issue), 6);
  EXPECT_EQ(count(Kind::copy_land), 6);
  EXPECT_EQ(count(Kind::arrive), 6 + 6 * 64);  // the producer's expect_tx, every thread's "empty"
  EXPECT_EQ(count(Kind::phase_complete), 12);
  EXPECT_EQ(count(Kind::wait_begin), count(Kind::wait_end));
  EXPECT_GT(count(Kind::wait_begin), 0);
  for (std::size_t i = 0; i < block0.size(); ++i) {
    const AsyncEvent& e = block0[i];
    EXPECT_EQ(e.order, i);
    if (e.kind == Kind::copy_issue) {
      // Chunk 10, the block's sixth, holds the last 40 floats.
      EXPECT_EQ(e.bytes, (e.copy == 5 ? 40u : 96u) * 4) << "event " << i;
      EXPECT_EQ(e.thread, 0);
      // It lands later, then its barrier's phase completes.
      auto land = std::find_if(block0.begin() + i, block0.end(), [&](const AsyncEvent& x) {
        return x.kind == Kind::copy_land && x.copy == e.copy;
      });
      ASSERT_NE(land, block0.end());
      EXPECT_EQ(land->shared_offset, e.shared_offset);
      auto done = std::find_if(land, block0.end(), [&](const AsyncEvent& x) {
        return x.kind == Kind::phase_complete && x.barrier == e.barrier;
      });
      ASSERT_NE(done, block0.end());
      EXPECT_EQ(done->phase, e.phase);
    }
    if (e.kind == Kind::wait_begin) {
      auto end = std::find_if(block0.begin() + i, block0.end(), [&](const AsyncEvent& x) {
        return x.kind == Kind::wait_end && x.thread == e.thread;
      });
      ASSERT_NE(end, block0.end());
      EXPECT_EQ(end->barrier, e.barrier);
      EXPECT_EQ(end->phase, e.phase);
    }
  }
  const nlohmann::json doc = cudalab::emu::to_json(launch);
  ASSERT_TRUE(doc.contains("async_events"));
  EXPECT_EQ(doc["async_events"]["events"].size(), launch.async_events.size());
  EXPECT_EQ(doc["async_events"]["columns"][2], "kind");
  EXPECT_EQ(doc["async_events"]["events"][0][2], "barrier_init");
  EXPECT_FALSE(doc.contains("tma_copies"));  // bulk copies, not tensor copies
}

}  // namespace
}  // namespace mbarrier_tests
