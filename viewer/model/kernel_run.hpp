// What one kernel launch did, in the shape the viewer's panels need.
//
// The emulator records far more than this (every access, barriers, races);
// the viewer keeps only what it draws: who wrote each element of the output
// tensor, and every warp-wide memory request with its 32 lane addresses.
// Everything here is plain data so that tests can build runs by hand.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace cudalab::viewer {

inline constexpr int kWarpSize = 32;

struct Dim3 {
  std::uint32_t x = 1, y = 1, z = 1;
  std::uint64_t volume() const { return std::uint64_t{x} * y * z; }
  friend bool operator==(const Dim3&, const Dim3&) = default;
};

// Unflattens a linear index (x fastest, as CUDA numbers blocks and threads).
Dim3 unflatten(std::uint64_t linear, Dim3 extent);

// One thread, by linear block and linear thread index within its block.
struct ThreadRef {
  std::uint32_t block = 0;
  std::uint32_t thread = 0;
  std::uint32_t warp() const { return thread / kWarpSize; }
  std::uint32_t lane() const { return thread % kWarpSize; }
  friend bool operator==(const ThreadRef&, const ThreadRef&) = default;
};

// How often an element of the output was written, and by whom. Only the
// first two writers are kept: enough to name a double write.
struct ElementWrites {
  std::uint32_t count = 0;
  ThreadRef first;
  ThreadRef second;
};

// A place in the kernel's source that accesses global memory.
struct AccessSite {
  std::string label;  // e.g. "store a[...]  (broadcast.cuh:14)"
  bool is_write = false;
};

// One warp-wide memory instruction: what the hardware coalesces into sectors.
struct WarpRequest {
  std::uint32_t site = 0;   // index into KernelRun::sites
  std::uint32_t block = 0;  // linear block index
  std::uint32_t warp = 0;   // warp within the block
  std::uint32_t bytes_per_lane = 4;
  std::uint32_t active_mask = 0;  // bit l set: lane l took part
  std::array<std::uint64_t, kWarpSize> address{};
  bool lane_active(int lane) const { return (active_mask >> lane) & 1u; }
};

struct KernelRun {
  std::string kernel;  // e.g. "broadcast_sum_kernel (lecture)"
  Dim3 grid, block;
  // The output tensor drawn as a matrix: rows x cols, row-major (cols is the
  // fastest-moving dimension; leading dimensions are folded into rows).
  std::uint64_t rows = 0, cols = 0;
  std::vector<ElementWrites> writes;  // rows * cols entries
  std::vector<AccessSite> sites;
  std::vector<WarpRequest> requests;

  std::uint64_t elements() const { return rows * cols; }
  std::uint64_t threads_per_block() const { return block.volume(); }
  std::uint64_t warps_per_block() const {
    return (threads_per_block() + kWarpSize - 1) / kWarpSize;
  }
  std::uint64_t blocks() const { return grid.volume(); }
};

// Records a write of element `index` by `who` (keeps the first two writers).
void record_write(KernelRun& run, std::uint64_t index, ThreadRef who);

}  // namespace cudalab::viewer
