// The emulator's device model checked against the GPU: each stream probe of
// stream_probes.cuh runs on the emulator (Emu/..., label emu) and on the GPU
// (Gpu/..., label gpu; skipped without one), and both must observe the same
// verdict. On the emulator an unordered producer and consumer must also be
// reported as a stream race. The H200's answers are tabled in
// docs/emulator.md ("The device model", checked on the H200).
#include <gtest/gtest.h>

#include <cstdio>
#include <ostream>
#include <string>

#include "stream_probes.hpp"

namespace stream_probes {
namespace {

enum class Backend { emulator, gpu };

void PrintTo(Backend backend, std::ostream* out) {
  *out << (backend == Backend::gpu ? "gpu" : "emulator");
}

class StreamProbes : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (on_gpu()) {
      const std::string why_not = gpu_unavailable_reason();
      if (!why_not.empty()) GTEST_SKIP() << why_not;
    }
  }

  bool on_gpu() const { return GetParam() == Backend::gpu; }

  Observation observe(Probe probe) const {
    Observation seen = on_gpu() ? observe_on_gpu(probe) : observe_on_emulator(probe);
    std::printf("  observed: %s%s%s\n", seen.verdict.c_str(), seen.note.empty() ? "" : "; ",
                seen.note.c_str());
    return seen;
  }

  // On the emulator, a consumer not ordered after its producer is also a
  // race report naming both kernels; an ordered one is clean.
  void expect_race_report(const Observation& seen, bool expected) const {
    if (on_gpu()) return;
    if (!expected) {
      EXPECT_TRUE(seen.stream_races.empty()) << seen.stream_races.front();
      return;
    }
    ASSERT_EQ(seen.stream_races.size(), 1u) << "one unordered producer and consumer";
    const std::string& race = seen.stream_races.front();
    EXPECT_NE(race.find("late_fill_kernel"), std::string::npos) << race;
    EXPECT_NE(race.find("copy_kernel"), std::string::npos) << race;
  }

  void expect_ordering(Probe probe, const std::string& expected) const {
    const Observation seen = observe(probe);
    EXPECT_EQ(seen.verdict, expected);
    expect_race_report(seen, expected == "not ordered");
  }

  // Whether a call waits for a non-blocking stream's pending work. Where the
  // emulator is known to differ from the GPU, its side is skipped with the
  // difference (`emulator_differs`), and the GPU's verdict stays the test.
  void expect_implicit_sync(Probe probe, const std::string& expected,
                            const char* emulator_differs = nullptr) const {
    if (!on_gpu() && emulator_differs != nullptr) {
      GTEST_SKIP() << "emulator differs: " << emulator_differs << " (lead to fix)";
    }
    EXPECT_EQ(observe(probe).verdict, expected);
  }
};

INSTANTIATE_TEST_SUITE_P(Emu, StreamProbes, ::testing::Values(Backend::emulator));
INSTANTIATE_TEST_SUITE_P(Gpu, StreamProbes, ::testing::Values(Backend::gpu));

// ---- The default streams --------------------------------------------------------

TEST_P(StreamProbes, TheLegacyDefaultStreamWaitsForABlockingStream) {
  expect_ordering(Probe::legacy_stream_after_blocking_stream, "ordered");
}

TEST_P(StreamProbes, ABlockingStreamWaitsForTheLegacyDefaultStream) {
  expect_ordering(Probe::blocking_stream_after_legacy_stream, "ordered");
}

TEST_P(StreamProbes, ANonBlockingStreamDoesNotWaitForTheLegacyDefaultStream) {
  expect_ordering(Probe::non_blocking_stream_after_legacy_stream, "not ordered");
}

TEST_P(StreamProbes, TheLegacyDefaultStreamDoesNotWaitForANonBlockingStream) {
  expect_ordering(Probe::legacy_stream_after_non_blocking_stream, "not ordered");
}

TEST_P(StreamProbes, ThePerThreadDefaultStreamWaitsForTheLegacyOne) {
  expect_ordering(Probe::per_thread_stream_after_legacy_stream, "ordered");
}

TEST_P(StreamProbes, TheLegacyDefaultStreamWaitsForThePerThreadOne) {
  expect_ordering(Probe::legacy_stream_after_per_thread_stream, "ordered");
}

TEST_P(StreamProbes, ABlockingStreamDoesNotWaitForThePerThreadDefaultStream) {
  expect_ordering(Probe::blocking_stream_after_per_thread_stream, "not ordered");
}

// ---- Events -------------------------------------------------------------------------

TEST_P(StreamProbes, AWaitBindsToTheRecordMadeBeforeIt) {
  const Observation seen = observe(Probe::wait_after_record_then_record_again);
  EXPECT_EQ(seen.verdict,
            "first fill: ordered, second fill (recorded after the wait): not ordered");
  expect_race_report(seen, true);
}

TEST_P(StreamProbes, WaitingForANeverRecordedEventIsNoWait) {
  expect_ordering(Probe::wait_for_never_recorded_event, "not ordered");
}

// ---- Async copies -----------------------------------------------------------------

TEST_P(StreamProbes, AnAsyncCopyToPageableMemoryIsCompleteAtReturnToPinnedMemoryItIsNot) {
  const Observation seen = observe(Probe::async_copy_to_pageable_and_pinned_memory);
  EXPECT_EQ(seen.verdict,
            "pageable: complete at return; pinned: not done at return, complete after "
            "cudaStreamSynchronize");
  expect_race_report(seen, false);
}

// ---- Implicit synchronisation with a non-blocking stream ------------------------

TEST_P(StreamProbes, ImplicitSyncOfASmallCudaMalloc) {
  expect_implicit_sync(Probe::implicit_sync_cudaMalloc_small, "did not wait");
}

TEST_P(StreamProbes, ImplicitSyncOfALargeCudaMalloc) {
  expect_implicit_sync(Probe::implicit_sync_cudaMalloc_large, "did not wait");
}

TEST_P(StreamProbes, ImplicitSyncOfCudaFree) {
  expect_implicit_sync(Probe::implicit_sync_cudaFree, "waited");
}

TEST_P(StreamProbes, ImplicitSyncOfCudaMallocHost) {
  expect_implicit_sync(Probe::implicit_sync_cudaMallocHost, "did not wait");
}

TEST_P(StreamProbes, ImplicitSyncOfCudaFreeHost) {
  expect_implicit_sync(Probe::implicit_sync_cudaFreeHost, "waited");
}

TEST_P(StreamProbes, ImplicitSyncOfCudaMemcpyHostToDevice) {
  expect_implicit_sync(Probe::implicit_sync_cudaMemcpy_host_to_device, "did not wait");
}

TEST_P(StreamProbes, ImplicitSyncOfCudaMemcpyDeviceToHost) {
  expect_implicit_sync(Probe::implicit_sync_cudaMemcpy_device_to_host, "did not wait");
}

TEST_P(StreamProbes, ImplicitSyncOfCudaMemcpyDeviceToDevice) {
  expect_implicit_sync(Probe::implicit_sync_cudaMemcpy_device_to_device, "did not wait");
}

TEST_P(StreamProbes, ImplicitSyncOfCudaMemset) {
  expect_implicit_sync(Probe::implicit_sync_cudaMemset, "did not wait");
}

TEST_P(StreamProbes, ImplicitSyncOfCudaDeviceSynchronize) {
  expect_implicit_sync(Probe::implicit_sync_cudaDeviceSynchronize, "waited");
}

// Lazy loading (CUDA_MODULE_LOADING=LAZY, the default since CUDA 12.2): the
// first launch of a kernel in a process waits for the other streams' work,
// which the emulator does not model. Only a process's first launch shows it.
TEST_P(StreamProbes, TheFirstLaunchOfAKernelWaitsForOtherStreams) {
  static bool probed[2] = {false, false};
  bool& already = probed[on_gpu() ? 1 : 0];
  if (already) GTEST_SKIP() << "only the first launch of the kernel in a process loads it";
  already = true;
  expect_implicit_sync(Probe::first_launch_of_a_kernel, "ordered",
                       "no kernel loading on the emulator: a first launch is ordered like "
                       "any other (the emulator reports the race)");
}

// ---- Queries and timing ---------------------------------------------------------------

// A known difference: the emulator runs everything queued when asked
// (docs/emulator.md, "Queued work"), so its queries find the work done.
TEST_P(StreamProbes, QueriesOnPendingWork) {
  EXPECT_EQ(observe(Probe::queries_on_pending_work).verdict,
            on_gpu() ? "cudaEventQuery: cudaErrorNotReady, cudaStreamQuery: cudaErrorNotReady"
                     : "cudaEventQuery: cudaSuccess, cudaStreamQuery: cudaSuccess");
}

TEST_P(StreamProbes, ElapsedTimeMeasuresASpin) {
  EXPECT_EQ(observe(Probe::elapsed_time_of_a_spin).verdict, "within 10% of the spin");
}

// ---- Stream-ordered allocation ----------------------------------------------------------

class StreamOrderedAllocation : public StreamProbes {};

INSTANTIATE_TEST_SUITE_P(Emu, StreamOrderedAllocation, ::testing::Values(Backend::emulator));
INSTANTIATE_TEST_SUITE_P(Gpu, StreamOrderedAllocation, ::testing::Values(Backend::gpu));

TEST_P(StreamOrderedAllocation, AFreedBlockIsReusedAtOnceOnItsOwnStream) {
  EXPECT_EQ(observe(Probe::malloc_async_after_free_on_the_same_stream).verdict, "the same block");
}

// The pool does not hand out a block whose free is still pending on another
// stream (nor make that stream wait for it): it gives another block.
TEST_P(StreamOrderedAllocation, AnotherStreamWithoutAnEdgeGetsAnotherBlock) {
  EXPECT_EQ(observe(Probe::malloc_async_after_free_on_another_stream).verdict, "another block");
}

TEST_P(StreamOrderedAllocation, AnotherStreamAfterAnEventEdgeGetsTheSameBlock) {
  EXPECT_EQ(observe(Probe::malloc_async_after_free_and_an_event_edge).verdict, "the same block");
}

}  // namespace
}  // namespace stream_probes
