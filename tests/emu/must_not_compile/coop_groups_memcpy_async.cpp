// Must not compile: a cooperative-groups call the emulator does not provide.
// Its test (tests/emu/CMakeLists.txt) passes when the message names it.
#include <cooperative_groups.h>

#include "cudalab/kernel.hpp"

namespace cg = cooperative_groups;

__global__ void copy_to_shared(const float* in) {
  __shared__ float tile[32];
  cg::thread_block block = cg::this_thread_block();
  cg::memcpy_async(block, tile, in, sizeof tile);
  cg::wait(block);
}
