// Cooperative groups on both backends: coop_groups.cuh holds the kernels and
// their launches as plain CUDA, compiled for the emulator
// (coop_groups_emu.cpp, rewritten and instrumented) and by nvcc
// (coop_groups_gpu.cu); test_coop_groups.cpp runs each on both and checks
// the values against CPU references that follow CUDA's order of operations.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <driver_types.h>

namespace coop_groups {

// What one thread of tile_ops_kernel<N> saw (coop_groups.cuh).
struct TileOps {
  int rank, meta_rank, meta_size;
  int shfl_down, shfl_up, shfl_xor, shfl_last;
  unsigned ballot, match_any, match_all;
  int match_all_pred, any, all;
  int max, inclusive, exclusive, exclusive_min;
};

// What one thread of coalesced_kernel saw; lanes outside the branch write -1s.
struct CoalescedOps {
  int rank, size, sum, inclusive, exclusive, first, next;
  unsigned ballot;
  int any, all;
};

// One backend's launches. Every function returns what the kernels wrote.
struct Kernels {
  // One sum per block of `block` threads: tiled_partition<32> + cg::reduce per
  // warp, the warps' sums added in warp order by thread 0.
  std::vector<int> (*block_sum_int)(const std::vector<int>& in, unsigned block);
  std::vector<unsigned> (*block_sum_unsigned)(const std::vector<unsigned>& in, unsigned block);
  std::vector<float> (*block_sum_float)(const std::vector<float>& in, unsigned block);
  std::vector<double> (*block_sum_double)(const std::vector<double>& in, unsigned block);
  // Per thread, N = 4, 8, 16 (tile_ops_kernel<N>); in.size() threads in blocks of `block`.
  std::vector<TileOps> (*tile_ops_4)(const std::vector<int>& in, unsigned block);
  std::vector<TileOps> (*tile_ops_8)(const std::vector<int>& in, unsigned block);
  std::vector<TileOps> (*tile_ops_16)(const std::vector<int>& in, unsigned block);
  // Per tile of 64 / 128 threads (multi_warp_tile_kernel<N>): [cg::reduce sum,
  // shfl from the last rank, any(v < 0), all(v < 1000), meta rank, meta size];
  // elements past in.size() are 0; `block` is a multiple of the tile.
  std::vector<int> (*multi_warp_64)(const std::vector<int>& in, unsigned block);
  std::vector<int> (*multi_warp_128)(const std::vector<int>& in, unsigned block);
  // Inclusive and exclusive scans of tiles of 32, then of 8: [incl32, excl32, incl8, excl8] per
  // element.
  std::vector<float> (*scan_float)(const std::vector<float>& in, unsigned block);
  std::vector<double> (*scan_double)(const std::vector<double>& in, unsigned block);
  std::vector<unsigned> (*scan_unsigned_xor)(const std::vector<unsigned>& in, unsigned block);
  // Lanes whose value is a multiple of 3 form a coalesced group.
  std::vector<CoalescedOps> (*coalesced)(const std::vector<int>& in, unsigned block);
  // Two phases around grid.sync(), `rounds` times: out[i] of the last round
  // (cudaLaunchCooperativeKernel, grid of `blocks` x `block`, grid-stride).
  std::vector<unsigned> (*grid_rounds)(const std::vector<unsigned>& in, unsigned blocks,
                                       unsigned block, int rounds, cudaError_t* launch);
  // The largest cooperative grid of 32-thread blocks with 100 KiB of dynamic
  // shared memory each, then one block more: what each launch returned.
  void (*grid_limit)(cudaError_t* at_limit, cudaError_t* above_limit, unsigned* limit_blocks);
  // grid.sync() in a <<<>>> launch: is_valid() and the synchronisation's error.
  void (*grid_sync_not_cooperative)(int* is_valid, cudaError_t* sync_error);
  // The Programming Guide's examples, retyped: sum_kernel_block (thread_group
  // reduce_sum over a thread_block), the same over tiled_partition(tile32, 4)
  // tiles, tile_sum<32> with shfl_down, and the grid-sync launch.
  int (*guide_block_sum)(const std::vector<int>& in, unsigned block);
  int (*guide_tile4_sum)(const std::vector<int>& in, unsigned block);
  int (*guide_tile32_sum)(const std::vector<int>& in, unsigned block);
  std::vector<int> (*guide_grid_sync)(const std::vector<int>& in, unsigned* blocks_launched);
};

const Kernels& emulator_kernels();
const Kernels& gpu_kernels();
// "" when there is a GPU; otherwise why the GPU side is skipped.
std::string gpu_unavailable_reason();

// Emulator only: the reports a divergent block.sync() and a divergent
// __syncthreads() make (kind, message, file:line), and the launches' errors.
struct DivergentReports {
  std::string block_sync_kind, block_sync_message, block_sync_site;
  std::string syncthreads_kind, syncthreads_message;
  cudaError_t block_sync_error, syncthreads_error;
  std::string grid_sync_kind, grid_sync_message;  // grid.sync() in a <<<>>> launch
  // A cooperative launch whose block 1 returns before grid.sync().
  std::string grid_early_exit_kind, grid_early_exit_message;
  cudaError_t grid_early_exit_error;
  bool grid_run_clean;  // a cooperative launch's Recording has no report
  std::string grid_run_reports;
};
DivergentReports emulator_reports();

}  // namespace coop_groups
