#include "coalescing_model.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace cudalab::viewer {
namespace {

// Every byte interval [begin, end) the active lanes touch, merged.
std::vector<std::pair<std::uint64_t, std::uint64_t>> byte_ranges(const WarpRequest& r) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  for (int lane = 0; lane < kWarpSize; ++lane)
    if (r.lane_active(lane))
      ranges.push_back({r.address[lane], r.address[lane] + r.bytes_per_lane});
  std::sort(ranges.begin(), ranges.end());
  std::vector<std::pair<std::uint64_t, std::uint64_t>> merged;
  for (const auto& range : ranges) {
    if (!merged.empty() && range.first <= merged.back().second)
      merged.back().second = std::max(merged.back().second, range.second);
    else
      merged.push_back(range);
  }
  return merged;
}

}  // namespace

RequestStats analyse(const WarpRequest& request) {
  RequestStats s;
  std::set<std::uint64_t> sectors, lines;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!request.lane_active(lane)) continue;
    ++s.active_lanes;
    const std::uint64_t first = request.address[lane];
    const std::uint64_t last = first + request.bytes_per_lane - 1;
    for (std::uint64_t sec = first / kSectorBytes; sec <= last / kSectorBytes; ++sec)
      sectors.insert(sec);
    for (std::uint64_t line = first / kLineBytes; line <= last / kLineBytes; ++line)
      lines.insert(line);
  }
  for (const auto& [begin, end] : byte_ranges(request)) s.requested_bytes += end - begin;
  s.sectors = static_cast<int>(sectors.size());
  s.lines = static_cast<int>(lines.size());
  s.ideal_sectors = static_cast<int>((s.requested_bytes + kSectorBytes - 1) / kSectorBytes);
  return s;
}

SiteSummary summarise_site(const KernelRun& run, std::uint32_t site) {
  SiteSummary summary;
  summary.histogram.assign(kHistogramBins, 0);
  std::uint64_t requested = 0, moved = 0, sectors = 0, ideal = 0;
  for (const WarpRequest& r : run.requests) {
    if (r.site != site) continue;
    const RequestStats s = analyse(r);
    ++summary.requests;
    ++summary.histogram[std::min(s.sectors, kHistogramBins - 1)];
    requested += s.requested_bytes;
    moved += static_cast<std::uint64_t>(s.sectors) * kSectorBytes;
    sectors += s.sectors;
    ideal += s.ideal_sectors;
  }
  if (summary.requests > 0) {
    summary.mean_sectors = static_cast<double>(sectors) / summary.requests;
    summary.mean_ideal_sectors = static_cast<double>(ideal) / summary.requests;
    summary.efficiency = static_cast<double>(requested) / moved;
  }
  return summary;
}

std::optional<std::size_t> find_request(const KernelRun& run, std::uint32_t site,
                                        std::uint32_t block, std::uint32_t warp) {
  for (std::size_t i = 0; i < run.requests.size(); ++i) {
    const WarpRequest& r = run.requests[i];
    if (r.site == site && r.block == block && r.warp == warp) return i;
  }
  return std::nullopt;
}

std::optional<std::size_t> first_request(const KernelRun& run, std::uint32_t site) {
  for (std::size_t i = 0; i < run.requests.size(); ++i)
    if (run.requests[i].site == site) return i;
  return std::nullopt;
}

std::optional<std::uint32_t> first_store_site(const KernelRun& run) {
  for (std::uint32_t s = 0; s < run.sites.size(); ++s)
    if (run.sites[s].is_write) return s;
  return std::nullopt;
}

std::optional<std::uint32_t> corresponding_site(const KernelRun& from, std::uint32_t site,
                                                const KernelRun& to) {
  if (site >= from.sites.size()) return std::nullopt;
  const bool kind = from.sites[site].is_write;
  int rank = 0;
  for (std::uint32_t s = 0; s < site; ++s) rank += from.sites[s].is_write == kind;
  for (std::uint32_t s = 0; s < to.sites.size(); ++s)
    if (to.sites[s].is_write == kind && rank-- == 0) return s;
  return std::nullopt;
}

std::vector<LineRow> memory_picture(const WarpRequest& request) {
  std::map<std::uint64_t, LineRow> rows;  // by line address
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!request.lane_active(lane)) continue;
    std::uint64_t addr = request.address[lane];
    const std::uint64_t end = addr + request.bytes_per_lane;
    while (addr < end) {  // a lane's access may straddle two lines
      const std::uint64_t line = addr / kLineBytes * kLineBytes;
      const std::uint64_t piece_end = std::min(end, line + kLineBytes);
      LineRow& row = rows[line];
      row.address = line;
      row.lanes.push_back({lane, addr - line, piece_end - addr});
      for (std::uint64_t b = addr; b < piece_end; b += kSectorBytes - (b % kSectorBytes))
        row.sector_touched[(b - line) / kSectorBytes] = true;
      addr = piece_end;
    }
  }
  std::vector<LineRow> picture;
  for (auto& [line, row] : rows) {
    if (!picture.empty()) row.gap_before = line - (picture.back().address + kLineBytes);
    picture.push_back(std::move(row));
  }
  return picture;
}

}  // namespace cudalab::viewer
