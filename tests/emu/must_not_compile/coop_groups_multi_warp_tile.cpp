// Must not compile: a tile of more than one warp (CUDA's needs
// block_tile_memory, which the emulator does not provide).
#include <cooperative_groups.h>

#include "cudalab/kernel.hpp"

namespace cg = cooperative_groups;

__global__ void two_warp_tile(int* out) {
  cg::thread_block_tile<64> tile = cg::tiled_partition<64>(cg::this_thread_block());
  out[threadIdx.x] = static_cast<int>(tile.thread_rank());
}
