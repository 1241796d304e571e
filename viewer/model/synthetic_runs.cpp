#include "synthetic_runs.hpp"

#include <utility>

namespace cudalab::viewer {
namespace {

constexpr std::uint64_t kBaseA = 0x7f0000000000;  // output a
constexpr std::uint64_t kBaseB = 0x7f1000000000;  // broadcast operand b
constexpr std::uint32_t kFloatBytes = 4;

enum Site : std::uint32_t { kLoadB, kLoadA, kStoreA };

}  // namespace

KernelRun simulate_broadcast(std::string kernel, Dim3 grid, Dim3 block, std::uint64_t rows,
                             std::uint64_t cols, const ThreadMapping& mapping) {
  KernelRun run;
  run.kernel = std::move(kernel);
  run.grid = grid;
  run.block = block;
  run.rows = rows;
  run.cols = cols;
  run.writes.assign(rows * cols, {});
  run.sites = {
      {"load  b[k]", false}, {"load  a[IDX2D(j, k, y)]", false}, {"store a[IDX2D(j, k, y)]", true}};

  const std::uint64_t threads = block.volume();
  for (std::uint64_t b = 0; b < grid.volume(); ++b) {
    const Dim3 block_idx = unflatten(b, grid);
    for (std::uint64_t warp_start = 0; warp_start < threads; warp_start += kWarpSize) {
      std::array<WarpRequest, 3> warp_requests;
      for (std::uint32_t s = 0; s < warp_requests.size(); ++s) {
        warp_requests[s].site = s;
        warp_requests[s].block = static_cast<std::uint32_t>(b);
        warp_requests[s].warp = static_cast<std::uint32_t>(warp_start / kWarpSize);
        warp_requests[s].bytes_per_lane = kFloatBytes;
      }
      for (std::uint64_t t = warp_start; t < threads && t < warp_start + kWarpSize; ++t) {
        const auto cell = mapping(block_idx, unflatten(t, block), grid, block);
        if (!cell || cell->row >= rows || cell->col >= cols) continue;
        const std::uint64_t index = cell->row * cols + cell->col;
        record_write(run, index, {static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(t)});
        const int lane = static_cast<int>(t - warp_start);
        const std::uint64_t addr_a = kBaseA + index * kFloatBytes;
        const std::uint64_t addr_b = kBaseB + cell->col * kFloatBytes;
        for (auto& r : warp_requests) r.active_mask |= 1u << lane;
        warp_requests[kLoadB].address[lane] = addr_b;
        warp_requests[kLoadA].address[lane] = addr_a;
        warp_requests[kStoreA].address[lane] = addr_a;
      }
      for (const auto& r : warp_requests)
        if (r.active_mask != 0) run.requests.push_back(r);
    }
  }
  return run;
}

}  // namespace cudalab::viewer
