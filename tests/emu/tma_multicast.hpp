// TMA multicast on both backends: tma_multicast.cuh holds the kernel and its
// cluster launch as plain CUDA, compiled for the emulator
// (tma_multicast_emu.cpp, rewritten and instrumented) and by nvcc
// (tma_multicast_gpu.cu, sm_90); test_tma_multicast.cpp runs it on both.
#pragma once

#include <string>
#include <vector>

namespace tma_multicast {

// An int32 tile of kTileRows x kTileCols, 1 KiB: one TMA box.
constexpr unsigned kTileRows = 8;
constexpr unsigned kTileCols = 32;
constexpr unsigned kTileElements = kTileRows * kTileCols;

// A bug planted in the kernel (emulator only: on a GPU it reads stale bytes).
enum class Planted {
  none,
  // Every block passes a cluster.sync() after rank 0 issued the multicast,
  // and the peers read the A tile there, before waiting on their mbarrier.
  peer_reads_before_wait,
};

struct Kernels {
  // Clusters of `cluster` blocks over b's tiles (b.size() a multiple of
  // kTileElements * cluster, one tile a block): each cluster's rank 0
  // multicasts the A tile `a` (kTileElements) to every block of its
  // cluster, each block loads its own B tile, and returns per block the
  // dot product of A with its B tile.
  std::vector<int> (*dot_with_shared_a)(const std::vector<int>& a, const std::vector<int>& b,
                                        unsigned cluster);
};

const Kernels& emulator_kernels();
const Kernels& gpu_kernels();
std::string gpu_unavailable_reason();

// The emulator's reports ("kind: message", one a line) for the kernel with
// `bug` on clusters of `cluster` blocks, and whether the launch failed.
struct PlantedReport {
  std::string reports;
  bool failed_launch = false;
};
PlantedReport emulator_report(Planted bug, unsigned cluster);

}  // namespace tma_multicast
