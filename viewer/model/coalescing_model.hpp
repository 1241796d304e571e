// How a warp's 32 lane addresses fall into the memory system's units:
// 32-byte sectors (what DRAM/L2 move) inside 128-byte lines (one L1 cache line).
//
// Efficiency is requested bytes / moved bytes: the unique bytes the active
// lanes asked for, divided by 32 x the sectors that had to move. A fully
// coalesced fp32 warp asks for 128 consecutive bytes: 4 sectors, 100%.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "kernel_run.hpp"

namespace cudalab::viewer {

inline constexpr std::uint64_t kSectorBytes = 32;
inline constexpr std::uint64_t kLineBytes = 128;
inline constexpr int kSectorsPerLine = kLineBytes / kSectorBytes;

struct RequestStats {
  int active_lanes = 0;
  std::uint64_t requested_bytes = 0;  // unique bytes the active lanes asked for
  int sectors = 0;                    // 32-byte sectors touched
  int lines = 0;                      // 128-byte lines touched
  int ideal_sectors = 0;              // fewest sectors that could hold requested_bytes
  double efficiency() const {
    return sectors == 0 ? 0.0 : static_cast<double>(requested_bytes) / (sectors * kSectorBytes);
  }
};
RequestStats analyse(const WarpRequest& request);

// Over all requests of one access site.
struct SiteSummary {
  std::uint64_t requests = 0;
  double mean_sectors = 0, mean_ideal_sectors = 0;
  double efficiency = 0;  // total requested / total moved bytes
  // histogram[n] = requests touching n sectors; the last bin holds n >= its index.
  std::vector<std::uint64_t> histogram;
};
inline constexpr int kHistogramBins = 34;  // 0..32 and "33 or more"
SiteSummary summarise_site(const KernelRun& run, std::uint32_t site);

// The request of `site` made by warp `warp` of block `block`, if that warp made one.
std::optional<std::size_t> find_request(const KernelRun& run, std::uint32_t site,
                                        std::uint32_t block, std::uint32_t warp);
// The first request of `site`, to have something to show.
std::optional<std::size_t> first_request(const KernelRun& run, std::uint32_t site);

// The first site that stores: what a broadcast kernel's coalescing is about.
std::optional<std::uint32_t> first_store_site(const KernelRun& run);
// The site of `to` that plays the part `site` plays in `from`: the k-th load
// or store there is the k-th load or store here.
std::optional<std::uint32_t> corresponding_site(const KernelRun& from, std::uint32_t site,
                                                const KernelRun& to);

// A picture of one request: the lines it touches, in address order.
struct LaneAccess {
  int lane;
  std::uint64_t offset;  // byte offset within the line
  std::uint64_t bytes;   // bytes of this lane inside this line
};
struct LineRow {
  std::uint64_t address;         // 128-byte aligned
  std::uint64_t gap_before = 0;  // bytes skipped since the previous touched line
  std::array<bool, kSectorsPerLine> sector_touched{};
  std::vector<LaneAccess> lanes;
};
std::vector<LineRow> memory_picture(const WarpRequest& request);

}  // namespace cudalab::viewer
