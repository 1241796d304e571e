// Must not compile: a scan over a tile of more than one warp (CUDA has it;
// the emulator's multi-warp tiles provide sync, shfl, any/all and reduce).
#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>

#include "cudalab/kernel.hpp"

namespace cg = cooperative_groups;

__global__ void two_warp_scan(int* out) {
  __shared__ cg::block_tile_memory<128> scratch;
  cg::thread_block block = cg::this_thread_block(scratch);
  cg::thread_block_tile<64> tile = cg::tiled_partition<64>(block);
  out[threadIdx.x] = cg::inclusive_scan(tile, static_cast<int>(tile.thread_rank()));
}
