// The kernel of tma_multicast.hpp, one source for both backends (inside the
// inline namespace CUDALAB_BACKEND, so both builds link into one program).
#pragma once

#include <cooperative_groups.h>

#include <cstdint>
#include <vector>

#include "cudalab/check.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/kernel.hpp"
#include "cudalab/mbarrier.hpp"
#include "cudalab/tma.hpp"
#include "tma_multicast.hpp"

namespace cg = cooperative_groups;

namespace tma_multicast {
inline namespace CUDALAB_BACKEND {

// Not in an anonymous namespace: reports name kernels through their symbols.
namespace device {

constexpr unsigned kTileBytes = kTileElements * sizeof(int);

__global__ void dot_with_shared_a_kernel(const __grid_constant__ CUtensorMap a_map,
                                         const __grid_constant__ CUtensorMap b_map, int* out,
                                         Planted bug) {
  cg::cluster_group cluster = cg::this_cluster();
  __shared__ __align__(128) int a_tile[kTileElements];
  __shared__ __align__(128) int b_tile[kTileElements];
  __shared__ std::uint64_t full;
  const unsigned rank = cluster.block_rank();
  if (threadIdx.x == 0) {
    cudalab::mbarrier_init(&full, 1);
    cudalab::fence_mbarrier_init();
  }
  // Every block's barrier is initialised before rank 0's multicast completes on it.
  cluster.sync();
  if (threadIdx.x == 0) {
    // Each block expects both tiles on its own barrier: A from rank 0, B its own.
    cudalab::mbarrier_arrive_expect_tx(&full, 2 * kTileBytes);
    if (rank == 0) {
      const auto every_block = static_cast<std::uint16_t>((1u << cluster.num_blocks()) - 1u);
      cudalab::tma_load_multicast(a_tile, &a_map, &full, every_block, 0, 0);
    }
    cudalab::tma_load(b_tile, &b_map, &full, 0, static_cast<int>(blockIdx.x * kTileRows));
  }
  // The planted bug: a peer's thread 0 takes A's first element too early.
  const bool reads_early = bug == Planted::peer_reads_before_wait && rank != 0 && threadIdx.x == 0;
  int a_first = 0;
  if (bug == Planted::peer_reads_before_wait) {
    cluster.sync();  // the multicast was issued, which does not mean it landed
    if (reads_early) a_first = a_tile[0];
  }
  cudalab::mbarrier_wait_parity(&full, 0);
  int sum = 0;
  for (unsigned i = threadIdx.x; i < kTileElements; i += blockDim.x) {
    sum += (i == 0 && reads_early ? a_first : a_tile[i]) * b_tile[i];
  }
  atomicAdd(&out[blockIdx.x], sum);
}

}  // namespace device

inline CUtensorMap tile_map(const int* base, unsigned rows) {
  return cudalab::make_tensor_map(CU_TENSOR_MAP_DATA_TYPE_INT32, base, {kTileCols, rows},
                                  {kTileCols * sizeof(int)}, {kTileCols, kTileRows});
}

inline std::vector<int> run(const std::vector<int>& a, const std::vector<int>& b, unsigned cluster,
                            Planted bug) {
  const auto blocks = static_cast<unsigned>(b.size() / kTileElements);
  cudalab::DeviceBuffer<int> d_a(a), d_b(b), d_out(std::vector<int>(blocks, 0));
  const CUtensorMap a_map = tile_map(d_a.data(), kTileRows);
  const CUtensorMap b_map = tile_map(d_b.data(), blocks * kTileRows);
  cudaLaunchAttribute attribute;
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = cluster;
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  // Positional: on the emulator gridDim and blockDim are macros.
  cudaLaunchConfig_t config = {dim3(blocks), dim3(128), 0, nullptr, &attribute, 1};
  CUDA_CHECK(cudaLaunchKernelEx(&config, device::dot_with_shared_a_kernel, a_map, b_map,
                                d_out.data(), bug));
  CUDA_CHECK(cudaDeviceSynchronize());
  return d_out.copy_to_host();
}

inline std::vector<int> dot_with_shared_a(const std::vector<int>& a, const std::vector<int>& b,
                                          unsigned cluster) {
  return run(a, b, cluster, Planted::none);
}

inline const Kernels& kernels() {
  static const Kernels k{&dot_with_shared_a};
  return k;
}

}  // namespace CUDALAB_BACKEND
}  // namespace tma_multicast
