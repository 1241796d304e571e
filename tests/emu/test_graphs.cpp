// CUDA graphs by stream capture on both backends (graphs.hpp): a captured
// chain replayed with fresh inputs, a fork and a join, the overlap of two
// forked branches, and the errors of misused capture as the GPU gives them.
// Emu/... on the emulator, Gpu/... on the GPU (skipped without one);
// GraphsEmu.* only on the emulator, which reports a race inside a graph on
// every schedule.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "both_backends.hpp"
#include "cudalab/emu/recorder.hpp"
#include "cudalab/random.hpp"
#include "graphs.hpp"
#include "schedules.hpp"

namespace graphs {
namespace {

class Graphs : public ::emu_tests::OnBothBackends<Kernels, &emulator_kernels, &gpu_kernels,
                                                  &gpu_unavailable_reason> {
 protected:
  // Integers, so that a*x + 1 and its scaling by powers of two are exact on
  // both backends whether or not the compiler fuses them.
  std::vector<float> integers(std::size_t n) {
    const std::vector<int> values = rng_.uniform<int>(n, -1000, 1000);
    return {values.begin(), values.end()};
  }
};

EMU_TESTS_ON_BOTH_BACKENDS(Graphs);

// "" when equal element for element (a NaN never is), else the first difference.
std::string first_difference(const std::vector<float>& got, const std::vector<float>& want) {
  if (got.size() != want.size()) {
    return "size " + std::to_string(got.size()) + " instead of " + std::to_string(want.size());
  }
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (!(got[i] == want[i])) {
      return "element " + std::to_string(i) + ": " + std::to_string(got[i]) + " instead of " +
             std::to_string(want[i]);
    }
  }
  return "";
}

TEST(GraphsChecks, APerturbedOrNanOutputFails) {
  const std::vector<float> want{1.0f, 2.0f, 3.0f};
  EXPECT_EQ(first_difference(want, want), "");
  EXPECT_NE(first_difference({1.0f, std::nextafter(2.0f, 3.0f), 3.0f}, want), "");
  EXPECT_NE(first_difference({1.0f, 2.0f, std::nanf("")}, want), "");
  EXPECT_NE(first_difference({1.0f, 2.0f}, want), "");
}

TEST_P(Graphs, ACapturedChainRunsOnlyWhenLaunchedAndReadsEachLaunchsInput) {
  for (std::size_t n : {std::size_t{1}, std::size_t{257}, std::size_t{70001}}) {
    for (unsigned block : {32u, 256u}) {
      SCOPED_TRACE("n " + std::to_string(n) + " block " + std::to_string(block));
      const float a = -0.5f, b = 4.0f;
      std::vector<std::vector<float>> inputs;
      for (int launch = 0; launch < 3; ++launch) inputs.push_back(integers(n));
      const ChainOutcome got = k().chain(inputs, a, b, block);
      EXPECT_EQ(got.nodes, 4u) << "copy in, two kernels, copy out";
      EXPECT_EQ(first_difference(got.after_capture, std::vector<float>(n, -7.0f)), "")
          << "a captured copy ran before the launch";
      ASSERT_EQ(got.outputs.size(), inputs.size());
      for (std::size_t launch = 0; launch < inputs.size(); ++launch) {
        SCOPED_TRACE("launch " + std::to_string(launch));
        std::vector<float> want(n);
        for (std::size_t i = 0; i < n; ++i) want[i] = b * (a * inputs[launch][i] + 1.0f);
        EXPECT_EQ(first_difference(got.outputs[launch], want), "");
      }
    }
  }
}

TEST_P(Graphs, AForkAndAJoinGiveEveryElementOnEitherLaunchStream) {
  for (std::size_t n : {std::size_t{2}, std::size_t{263}, std::size_t{4099}}) {
    for (bool on_legacy : {true, false}) {
      SCOPED_TRACE("n " + std::to_string(n) + (on_legacy ? " legacy" : " created stream"));
      const std::vector<float> x = integers(n);
      const ForkJoinOutcome got = k().fork_join(x, 8.0f, 128, on_legacy);
      EXPECT_EQ(got.nodes, 4u) << "copy in, a kernel per branch, copy out";
      std::vector<float> want(n);
      for (std::size_t i = 0; i < n; ++i) want[i] = 8.0f * x[i];
      EXPECT_EQ(first_difference(got.output, want), "");
    }
  }
}

TEST_P(Graphs, TwoForkedBranchesOverlapAndAChainDoesNot) {
  const float spin_ms = 20.0f;
  const float forked = k().elapsed_two_spins(spin_ms, true);
  const float chained = k().elapsed_two_spins(spin_ms, false);
  EXPECT_GE(forked, 0.95f * spin_ms);
  EXPECT_LE(forked, 1.4f * spin_ms) << "the branches should run side by side";
  EXPECT_GE(chained, 0.95f * 2 * spin_ms) << "one after the other";
  EXPECT_LE(chained, 1.4f * 2 * spin_ms);
  std::printf("two %g ms spins in one graph: forked %.3f ms, one stream %.3f ms\n", spin_ms, forked,
              chained);
}

TEST_P(Graphs, MisusedCaptureGivesTheGpusErrors) {
  const std::vector<std::pair<std::string, cudaError_t>> want{
      {"begin capture on the legacy default stream", cudaErrorStreamCaptureUnsupported},
      {"end capture of a stream that is not capturing", cudaErrorIllegalState},
      {"status before: none", cudaSuccess},
      {"status during: active", cudaSuccess},
      {"begin capture again on the capturing stream", cudaErrorIllegalState},
      {"cudaStreamSynchronize of the capturing stream", cudaErrorStreamCaptureUnsupported},
      {"status after it: invalidated", cudaSuccess},
      {"end capture of the invalidated capture", cudaErrorStreamCaptureInvalidated},
      {"its graph: null", cudaSuccess},
      {"cudaStreamQuery of the capturing stream", cudaErrorStreamCaptureUnsupported},
      {"  then end capture", cudaErrorStreamCaptureInvalidated},
      {"cudaMalloc during a global-mode capture", cudaErrorStreamCaptureUnsupported},
      {"  then end capture", cudaErrorStreamCaptureInvalidated},
      {"cudaMalloc during a relaxed-mode capture", cudaSuccess},
      {"  then end capture", cudaSuccess},
      {"  its graph's nodes == 1", cudaSuccess},
      {"cudaDeviceSynchronize during a capture", cudaErrorStreamCaptureUnsupported},
      {"  then end capture", cudaErrorStreamCaptureInvalidated},
      {"end capture with a fork never joined", cudaErrorStreamCaptureUnjoined},
      {"  the forked stream after it: none", cudaSuccess},
      {"end capture on the forked stream", cudaErrorStreamCaptureUnmatched},
      {"  then on the origin", cudaErrorStreamCaptureInvalidated},
      {"cudaEventSynchronize of an event recorded in the capture", cudaErrorCapturedEvent},
      {"  then end capture", cudaErrorStreamCaptureInvalidated},
      {"synchronous cudaMemset during a global-mode capture", cudaErrorStreamCaptureImplicit},
      {"  then end capture", cudaErrorStreamCaptureInvalidated},
      {"cudaFree during a global-mode capture", cudaErrorStreamCaptureUnsupported},
      {"  then end capture", cudaErrorStreamCaptureInvalidated},
      {"a capturing stream waits for an event recorded outside the capture",
       cudaErrorStreamCaptureIsolation},
      {"  then end capture", cudaErrorStreamCaptureInvalidated},
      {"a launch on the legacy default stream while a blocking stream captures",
       cudaErrorStreamCaptureImplicit},
      {"  then end capture", cudaErrorStreamCaptureInvalidated},
      {"a launch afterwards runs", cudaSuccess},
  };
  emu_tests::expect_same_errors(k().capture_errors(), want,
                                [](cudaError_t e) { return std::string(cudaGetErrorName(e)); });
}

using emu_tests::first_stream_race;
using emu_tests::quiet_with_schedule;

TEST(GraphsEmu, TwoBranchesOfAGraphWritingOneBufferRaceOnEverySchedule) {
  for (const char* schedule : {"adversarial", "fifo", "1", "2", "42"}) {
    SCOPED_TRACE(schedule);
    cudalab::emu::ScopedOptions scoped(quiet_with_schedule(schedule));
    cudalab::emu::Recording rec;
    emulator_two_writers(false);
    const std::optional<cudalab::emu::Report> race = first_stream_race(rec);
    ASSERT_TRUE(race.has_value()) << rec.reports_text();
    const std::string text = race->to_string();
    EXPECT_NE(text.find("fill_kernel"), std::string::npos) << text;
    EXPECT_NE(text.find("(graph node 0)"), std::string::npos) << text;
    EXPECT_NE(text.find("(graph node 1)"), std::string::npos) << text;
    EXPECT_NE(text.find(" of graph "), std::string::npos) << "the lanes' names\n" << text;
    EXPECT_NE(text.find("issued at emu/graphs_emu.cpp:"), std::string::npos) << text;
  }
}

TEST(GraphsEmu, BranchesTheGraphOrdersDoNotRace) {
  for (const char* schedule : {"adversarial", "fifo", "1", "2", "42"}) {
    SCOPED_TRACE(schedule);
    cudalab::emu::ScopedOptions scoped(quiet_with_schedule(schedule));
    cudalab::emu::Recording rec;
    emulator_two_writers(true);
    EXPECT_FALSE(first_stream_race(rec).has_value()) << rec.reports_text();
    EXPECT_TRUE(rec.clean()) << rec.reports_text();
  }
}

}  // namespace
}  // namespace graphs
