// libcu++'s cuda::barrier, cuda::pipeline and cuda::memcpy_async: the same
// kernels on the emulator (Emu/..., the emulator's <cuda/barrier> and
// <cuda/pipeline>) and on the GPU (Gpu/..., libcu++'s; skipped without an
// sm_80 GPU) give the same values; on the emulator the planted bugs are
// reported in words, and none of them hangs the test.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "both_backends.hpp"
#include "memcpy_async.hpp"

namespace memcpy_async_tests {
namespace {

using emu_tests::OnBothBackends;
class MemcpyAsync
    : public OnBothBackends<Kernels, emulator_kernels, gpu_kernels, gpu_unavailable_reason> {};
EMU_TESTS_ON_BOTH_BACKENDS(MemcpyAsync);

// What tiled_sum and block_pipeline_sum return, summed in their order.
std::vector<float> expected_partials(const std::vector<float>& in, int tile, unsigned blocks,
                                     unsigned threads) {
  std::vector<float> partial(std::size_t{blocks} * threads, 0.0f);
  const int n = static_cast<int>(in.size());
  for (unsigned b = 0; b < blocks; ++b) {
    for (int first = static_cast<int>(b) * tile; first < n;
         first += static_cast<int>(blocks) * tile) {
      const int count = std::min(tile, n - first);
      for (int i = 0; i < count; ++i) {
        partial[b * threads + static_cast<unsigned>(i) % threads] +=
            in[static_cast<std::size_t>(first + i)];
      }
    }
  }
  return partial;
}

struct TiledCase {
  std::size_t n;
  int tile;
  unsigned blocks, threads;
};
// Sizes of 1, primes and non-multiples of the tile; tiles smaller and
// larger than the block, and blocks that get no tile at all.
const TiledCase kTiledCases[] = {{1, 32, 1, 32},    {7, 4, 2, 3},        {997, 128, 3, 64},
                                 {1000, 96, 2, 40}, {4099, 256, 4, 256}, {13, 5, 5, 33}};

TEST_P(MemcpyAsync, TiledSumThroughABlockBarrierOverAwkwardSizes) {
  for (const CopyForm form : {CopyForm::whole_block, CopyForm::one_thread}) {
    for (const TiledCase& c : kTiledCases) {
      const std::vector<float> in = rng_.uniform(c.n, -4.0f, 4.0f);
      EXPECT_EQ(k().tiled_sum(in, c.tile, c.blocks, c.threads, form, Planted::none),
                expected_partials(in, c.tile, c.blocks, c.threads))
          << "n " << c.n << ", tile " << c.tile << ", " << c.blocks << " x " << c.threads
          << (form == CopyForm::whole_block ? ", whole block copies" : ", thread 0 copies");
    }
  }
}

TEST_P(MemcpyAsync, ThreadScopePipelineOfTwoToFourStages) {
  for (const int stages : {2, 3, 4}) {
    for (const bool wait_prior : {false, true}) {
      for (const std::size_t n : {std::size_t{1}, std::size_t{31}, std::size_t{1009}}) {
        const std::vector<float> in = rng_.uniform(n, -4.0f, 4.0f);
        std::vector<float> want(n);
        for (std::size_t i = 0; i < n; ++i) want[i] = 2.0f * in[i] - 1.0f;
        EXPECT_EQ(k().pipelined_scale(in, stages, wait_prior, 3, 64, Planted::none), want)
            << stages << " stages, n " << n
            << (wait_prior ? ", pipeline_consumer_wait_prior" : ", consumer_wait");
      }
    }
  }
}

TEST_P(MemcpyAsync, BlockScopePipelineOverAwkwardSizes) {
  for (const TiledCase& c : kTiledCases) {
    const std::vector<float> in = rng_.uniform(c.n, -4.0f, 4.0f);
    EXPECT_EQ(k().block_pipeline_sum(in, c.tile, c.blocks, c.threads),
              expected_partials(in, c.tile, c.blocks, c.threads))
        << "n " << c.n << ", tile " << c.tile << ", " << c.blocks << " x " << c.threads;
  }
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(MemcpyAsyncEmu, AReadBeforeTheBarrierWaitIsARaceWithTheCopy) {
  const PlantedReport r = tiled_sum_report(Planted::read_before_wait);
  EXPECT_TRUE(contains(r.reports, "intra_block_race at memcpy_async.cuh:")) << r.reports;
  EXPECT_TRUE(contains(r.reports, "bytes an async copy has not completed")) << r.reports;
  EXPECT_TRUE(contains(r.reports, "which completes with phase 0 of the mbarrier at")) << r.reports;
}

TEST(MemcpyAsyncEmu, AReadBeforeConsumerWaitIsARaceWithTheStage) {
  const PlantedReport r = pipelined_scale_report(Planted::read_before_wait);
  EXPECT_FALSE(r.failed_launch);
  EXPECT_TRUE(contains(r.reports, "intra_block_race at memcpy_async.cuh:")) << r.reports;
  EXPECT_TRUE(contains(r.reports, "Read of 4 bytes of shared memory")) << r.reports;
  EXPECT_TRUE(contains(r.reports, "which completes with stage 0 of that thread's cuda::pipeline"))
      << r.reports;
}

TEST(MemcpyAsyncEmu, ABarrierCountTooLargeIsAHangReportedInWords) {
  const PlantedReport r = tiled_sum_report(Planted::count_too_large);
  EXPECT_TRUE(r.failed_launch);
  EXPECT_TRUE(contains(r.reports, "mbarrier at memcpy_async.cuh:")) << r.reports;
  EXPECT_TRUE(contains(r.reports,
                       "with count 65) for phase 0 to complete, which it never can: "
                       "64 of its 65 arrivals came (1 missing)"))
      << r.reports;
  EXPECT_TRUE(contains(r.reports, "would hang")) << r.reports;
}

TEST(MemcpyAsyncEmu, ABarrierCountTooSmallIsAHangReportedInWords) {
  // The 64th arrival falls into the next phase, whose waiters nobody joins.
  const PlantedReport r = tiled_sum_report(Planted::count_too_small);
  EXPECT_TRUE(r.failed_launch);
  EXPECT_TRUE(contains(r.reports, "mbarrier at memcpy_async.cuh:")) << r.reports;
  EXPECT_TRUE(contains(r.reports, "with count 63) for phase ")) << r.reports;
  EXPECT_TRUE(contains(r.reports, "would hang")) << r.reports;
}

TEST(MemcpyAsyncEmu, ABrokenAlignedSizePromiseIsReported) {
  const PlantedReport r = tiled_sum_report(Planted::broken_alignment);
  EXPECT_TRUE(r.failed_launch);
  EXPECT_TRUE(contains(r.reports, "mbarrier at memcpy_async.cuh:")) << r.reports;
  EXPECT_TRUE(contains(r.reports, "cuda::memcpy_async of 180 bytes from ")) << r.reports;
  EXPECT_TRUE(contains(r.reports,
                       " with a size of cuda::aligned_size_t<16>: the size and both "
                       "addresses must be multiples of 16"))
      << r.reports;
}

TEST(MemcpyAsyncEmu, TheCorrectKernelsAreClean) {
  for (const PlantedReport& r :
       {tiled_sum_report(Planted::none), pipelined_scale_report(Planted::none)}) {
    EXPECT_FALSE(r.failed_launch);
    EXPECT_EQ(r.reports, "");
  }
}

}  // namespace
}  // namespace memcpy_async_tests
