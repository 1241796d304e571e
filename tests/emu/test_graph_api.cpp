// CUDA graphs built node by node on both backends (graph_api.hpp): a diamond
// whose edges are added after its nodes, relaunched; a clone with a changed
// kernel parameter and an executable graph updated in place; a 3D copy of a
// box; cudaLaunchKernel; and the errors of the node API as the GPU gives them. Emu/... on the
// emulator, Gpu/... on the GPU (skipped without one); GraphApiEmu.* only on
// the emulator, which reports a race between unordered nodes on every schedule.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "both_backends.hpp"
#include "cudalab/emu/recorder.hpp"
#include "graph_api.hpp"
#include "schedules.hpp"

namespace graph_api {
namespace {

class GraphApi : public ::emu_tests::OnBothBackends<Kernels, &emulator_kernels, &gpu_kernels,
                                                    &gpu_unavailable_reason> {};

EMU_TESTS_ON_BOTH_BACKENDS(GraphApi);

// y after the diamond: fill, then a*y + 1 on the first half, *b on the second.
std::vector<float> diamond_result(int n, float fill, float a, float b) {
  std::vector<float> y(static_cast<std::size_t>(n), fill);
  for (int i = 0; i < n; ++i) y[i] = i < n / 2 ? a * y[i] + 1.0f : y[i] * b;
  return y;
}

TEST_P(GraphApi, ADiamondBuiltNodeByNodeRunsInDependencyOrderOnEveryLaunch) {
  // Small integers and powers of two: exact on both backends.
  const int n = 1000;
  const float fill = 3.0f, a = -2.0f, b = 4.0f, a2 = 5.0f, b2 = 0.5f;
  const DiamondOutcome got = k().diamond(n, fill, a, b, a2, b2, 3);
  EXPECT_EQ(got.nodes, 5u);
  EXPECT_EQ(got.roots, 1u) << "only the memset has no dependency";
  EXPECT_EQ(got.edges, 5u);
  const std::vector<float> want = diamond_result(n, fill, a, b);
  ASSERT_EQ(got.outputs.size(), 3u);
  for (const std::vector<float>& output : got.outputs) EXPECT_EQ(output, want);
  ASSERT_EQ(got.seen_by_host.size(), 3u) << "the host node runs once per launch";
  for (const auto& [first, last] : got.seen_by_host) {
    EXPECT_EQ(first, want.front()) << "the host node ran before the copy it depends on";
    EXPECT_EQ(last, want.back());
  }
  EXPECT_EQ(got.clone, diamond_result(n, fill, a2, b)) << "the clone's changed kernel parameter";
  EXPECT_EQ(got.original_after_clone_changed, want) << "changing the clone changed the original";
  EXPECT_EQ(got.exec_updated, diamond_result(n, fill, a, b2)) << "cudaGraphExecKernelNodeSetParams";
}

TEST_P(GraphApi, AMemcpyNodeCopiesABoxBetweenPitchedPointers) {
  const int width = 5, height = 3, depth = 2;
  const int sx = width + 3, sy = height + 2;
  std::vector<float> want;
  for (int z = 0; z < depth; ++z) {
    for (int y = 0; y < height; ++y) {
      for (int x = 0; x < width; ++x) {
        want.push_back(static_cast<float>(((z + 1) * sy + (y + 1)) * sx + (x + 2)));
      }
    }
  }
  EXPECT_EQ(k().copy_box(width, height, depth), want);
}

TEST_P(GraphApi, CudaLaunchKernelReadsEachArgumentFromItsPointer) {
  for (bool as_void : {true, false}) {
    SCOPED_TRACE(as_void ? "the kernel as void*" : "the kernel itself");
    const int n = 300;
    std::vector<float> want(n);
    for (int i = 0; i < n; ++i) want[i] = -2.0f * static_cast<float>(i) + 1.0f;
    EXPECT_EQ(k().launch_from_arguments(n, -2.0f, as_void), want);
  }
}

TEST_P(GraphApi, MisusedNodeApiReturnsTheGpusErrors) {
  const std::vector<std::pair<std::string, cudaError_t>> want{
      {"cudaGraphCreate with flags 1", cudaErrorInvalidValue},
      {"a dependency on another graph's node", cudaErrorInvalidValue},
      {"a kernel node of a host function", cudaErrorInvalidResourceHandle},
      {"cudaLaunchKernel of a host function", cudaErrorInvalidResourceHandle},
      {"a memset node of 3-byte elements", cudaErrorInvalidValue},
      {"kernel node parameters of an empty node", cudaErrorInvalidValue},
      {"an edge closing a cycle", cudaSuccess},
      {"instantiate a graph with a cycle", cudaErrorInvalidValue},
      {"instantiate once the cycle's node is destroyed", cudaSuccess},
  };
  emu_tests::expect_same_errors(k().errors(), want,
                                [](cudaError_t e) { return std::string(cudaGetErrorName(e)); });
}

using emu_tests::first_stream_race;
using emu_tests::quiet_with_schedule;

TEST(GraphApiEmu, TwoKernelNodesWithoutAnEdgeWritingOneBufferRaceOnEverySchedule) {
  for (const char* schedule : {"adversarial", "fifo", "1", "2", "42"}) {
    SCOPED_TRACE(schedule);
    cudalab::emu::ScopedOptions scoped(quiet_with_schedule(schedule));
    cudalab::emu::Recording rec;
    emulator_two_writer_nodes(false);
    const std::optional<cudalab::emu::Report> race = first_stream_race(rec);
    ASSERT_TRUE(race.has_value()) << rec.reports_text();
    const std::string text = race->to_string();
    EXPECT_NE(text.find("affine_kernel"), std::string::npos) << text;
    EXPECT_NE(text.find("scale_kernel"), std::string::npos) << text;
    EXPECT_NE(text.find(" of graph "), std::string::npos) << "the lanes' names\n" << text;
  }
}

TEST(GraphApiEmu, AnEdgeBetweenTheTwoKernelNodesOrdersThem) {
  for (const char* schedule : {"adversarial", "fifo", "1", "2", "42"}) {
    SCOPED_TRACE(schedule);
    cudalab::emu::ScopedOptions scoped(quiet_with_schedule(schedule));
    cudalab::emu::Recording rec;
    emulator_two_writer_nodes(true);
    EXPECT_FALSE(first_stream_race(rec).has_value()) << rec.reports_text();
  }
}

}  // namespace
}  // namespace graph_api
