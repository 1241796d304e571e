// Which cooperative grids the emulator accepts: those the H200 accepts
// (cudaErrorCooperativeLaunchTooLarge above its occupancy limit), as far as
// the emulator can tell, and at most as many threads as it can park at once.
#include "cudalab/emu/cooperative_launch.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "engine.hpp"

namespace cudalab::emu {

namespace {

// The H200 (compute capability 9.0), per multiprocessor.
constexpr int kMaxBlocksPerMultiprocessor = 32;
constexpr int kMaxWarpsPerMultiprocessor = 64;  // 2048 threads
constexpr std::size_t kSharedPerMultiprocessor =
    228 * 1024;  // cudaDevAttrMaxSharedMemoryPerMultiprocessor
constexpr std::size_t kReservedSharedPerBlock = 1024;  // cudaDevAttrReservedSharedMemoryPerBlock
constexpr std::size_t kSharedAllocationUnit = 128;

thread_local bool cooperative_launch_active = false;

// Every thread of a cooperative grid may wait in grid.sync() at once, each on
// a fiber of its own, whose stack is two memory mappings (the stack and its
// guard page). Linux allows vm.max_map_count mappings per process (65530 by
// default on Debian, 1048576 on Ubuntu 24.04); a quarter of them is left for
// everything else.
std::uint64_t max_parked_threads() {
  std::uint64_t maps = 65530;
  std::ifstream f("/proc/sys/vm/max_map_count");
  if (f) f >> maps;
  return maps / 2 * 3 / 4;
}

}  // namespace

int max_active_blocks_per_multiprocessor(int threads, std::size_t dynamic_shared_bytes) noexcept {
  if (threads <= 0 || threads > 1024) return 0;
  const int warps = (threads + 31) / 32;
  const std::size_t shared_per_block = (dynamic_shared_bytes + kSharedAllocationUnit - 1) /
                                           kSharedAllocationUnit * kSharedAllocationUnit +
                                       kReservedSharedPerBlock;
  const auto by_shared = static_cast<int>(kSharedPerMultiprocessor / shared_per_block);
  return std::min({kMaxBlocksPerMultiprocessor, kMaxWarpsPerMultiprocessor / warps, by_shared});
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, const void* kernel,
                                                          int block_size,
                                                          std::size_t dynamic_shared_bytes) {
  if (!blocks || !kernel || block_size <= 0) return detail::set_last_error(cudaErrorInvalidValue);
  // A block over 1024 threads, or more dynamic shared memory than the
  // kernel may use, never fits: 0 blocks.
  *blocks = dynamic_shared_bytes > detail::max_dynamic_shared_of(kernel)
                ? 0
                : max_active_blocks_per_multiprocessor(block_size, dynamic_shared_bytes);
  return cudaSuccess;
}

namespace detail {

CooperativeLaunch::CooperativeLaunch() noexcept : saved_(cooperative_launch_active) {
  cooperative_launch_active = true;
}
CooperativeLaunch::~CooperativeLaunch() { cooperative_launch_active = saved_; }
bool CooperativeLaunch::active() noexcept { return cooperative_launch_active; }

cudaError_t check_cooperative_launch(const void* kernel, dim3 grid, dim3 block,
                                     std::size_t shared_bytes) {
  const std::uint64_t blocks = std::uint64_t{grid.x} * grid.y * grid.z;
  const int threads = static_cast<int>(block.x * block.y * block.z);
  const std::uint64_t resident =
      std::uint64_t(max_active_blocks_per_multiprocessor(threads, shared_bytes)) *
      kCooperativeMultiprocessors;
  if (blocks > resident) return cudaErrorCooperativeLaunchTooLarge;
  const std::uint64_t parked = max_parked_threads();
  if (blocks * static_cast<std::uint64_t>(threads) > parked) {
    std::cerr << "cudalab emulator: cudaLaunchCooperativeKernel of " << kernel_name(kernel)
              << " with " << blocks << " blocks of " << threads
              << " threads: the GPU would take this grid, but the emulator runs every thread of a "
                 "cooperative grid on a fiber of its own and can hold "
              << parked
              << " (three eighths of vm.max_map_count); refused with "
                 "cudaErrorLaunchOutOfResources. Launch fewer blocks.\n";
    return cudaErrorLaunchOutOfResources;
  }
  return cudaSuccess;
}

}  // namespace detail
}  // namespace cudalab::emu
