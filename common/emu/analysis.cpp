// Warp requests from a block's trace: sectors and lines for global memory,
// bank-conflict ways for traced shared memory.
//
// The emulator does not run a warp's lanes in lockstep, so a "request" is
// rebuilt: the k-th access that lane L of warp W makes at source site S joins
// the k-th access of every other lane of W at S. For straight-line code and
// uniform loops this is exactly the warp-wide instruction of the GPU.
#include <algorithm>
#include <array>

#include "engine.hpp"

namespace cudalab::emu::detail {

namespace {

struct Lane {
  std::uint64_t address;
  unsigned bytes;
};

struct RequestShape {
  unsigned sectors = 0, lines = 0, ways = 0;
  std::uint64_t distinct_bytes = 0;
};

// Distinct units of 2^shift bytes touched by the lanes.
unsigned distinct_units(const Lane* lanes, std::size_t n, unsigned shift) {
  std::array<std::uint64_t, 256> units;
  std::size_t count = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t first = lanes[i].address >> shift;
    const std::uint64_t last = (lanes[i].address + lanes[i].bytes - 1) >> shift;
    for (std::uint64_t u = first; u <= last && count < units.size(); ++u) units[count++] = u;
  }
  // Lanes come in lane order, so coalesced addresses are already sorted.
  if (!std::is_sorted(units.begin(), units.begin() + count)) {
    std::sort(units.begin(), units.begin() + count);
  }
  return static_cast<unsigned>(std::unique(units.begin(), units.begin() + count) - units.begin());
}

std::uint64_t distinct_bytes(Lane* lanes, std::size_t n) {
  std::sort(lanes, lanes + n, [](const Lane& a, const Lane& b) { return a.address < b.address; });
  std::uint64_t total = 0, covered_to = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t begin = std::max(lanes[i].address, covered_to);
    const std::uint64_t end = lanes[i].address + lanes[i].bytes;
    if (end > begin) total += end - begin;
    covered_to = std::max(covered_to, end);
  }
  return total;
}

// Wavefronts a shared-memory request needs: the most distinct 4-byte words
// any single bank must deliver (lanes reading the same word share it).
unsigned bank_ways(const Lane* lanes, std::size_t n) {
  std::array<std::uint64_t, 256> words;
  std::size_t count = 0;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::uint64_t w = lanes[i].address >> 2;
         w <= (lanes[i].address + lanes[i].bytes - 1) >> 2 && count < words.size(); ++w) {
      words[count++] = w;
    }
  }
  std::sort(words.begin(), words.begin() + count);
  count =
      static_cast<std::size_t>(std::unique(words.begin(), words.begin() + count) - words.begin());
  std::array<unsigned, 32> per_bank{};
  unsigned ways = 0;
  for (std::size_t i = 0; i < count; ++i) ways = std::max(ways, ++per_bank[words[i] % 32]);
  return ways;
}

RequestShape shape_of(Lane* lanes, std::size_t n, bool shared) {
  RequestShape s;
  if (shared) {
    s.ways = bank_ways(lanes, n);
  } else {
    s.sectors = distinct_units(lanes, n, 5);
    s.lines = distinct_units(lanes, n, 7);
    s.distinct_bytes = distinct_bytes(lanes, n);
  }
  return s;
}

void add(SectorStats& stats, const RequestShape& r) {
  ++stats.requests;
  stats.sectors += r.sectors;
  stats.lines += r.lines;
  stats.bytes_requested += r.distinct_bytes;
  if (stats.sectors_histogram.size() <= r.sectors) stats.sectors_histogram.resize(r.sectors + 1);
  ++stats.sectors_histogram[r.sectors];
}

void add(BankStats& stats, const RequestShape& r) {
  ++stats.requests;
  stats.wavefronts += r.ways;
  stats.max_ways = std::max(stats.max_ways, r.ways);
  if (stats.ways_histogram.size() <= r.ways) stats.ways_histogram.resize(r.ways + 1);
  ++stats.ways_histogram[r.ways];
}

// Groups accesses (already given launch site ids) into requests and calls
// `visit(first, last, lanes, n)` per request, in (warp, site, occurrence) order.
struct Keyed {
  std::uint32_t site;
  std::uint32_t occurrence;
  std::uint16_t warp;
  std::uint8_t kind;  // bit 0 write, bit 1 shared
  std::uint32_t index;
};

template <class Visit>
void for_each_request(std::vector<Keyed>& keyed, const std::uint64_t* addresses,
                      const std::uint8_t* bytes, Visit visit) {
  // Bucket by warp first (a counting sort), then sort each warp's few accesses;
  // the index breaks ties so that lanes stay in thread order.
  thread_local std::vector<Keyed> bucketed;
  thread_local std::vector<std::size_t> starts;
  std::uint16_t warps = 0;
  for (const Keyed& k : keyed) warps = std::max<std::uint16_t>(warps, k.warp + 1);
  starts.assign(warps + 1u, 0);
  for (const Keyed& k : keyed) ++starts[k.warp + 1u];
  for (std::size_t w = 0; w < warps; ++w) starts[w + 1] += starts[w];
  bucketed.resize(keyed.size());
  {
    thread_local std::vector<std::size_t> fill;
    fill.assign(starts.begin(), starts.end() - 1);
    for (const Keyed& k : keyed) bucketed[fill[k.warp]++] = k;
  }
  for (std::size_t w = 0; w < warps; ++w) {
    std::sort(bucketed.begin() + static_cast<std::ptrdiff_t>(starts[w]),
              bucketed.begin() + static_cast<std::ptrdiff_t>(starts[w + 1]),
              [](const Keyed& a, const Keyed& b) {
                return std::tie(a.site, a.occurrence, a.kind, a.index) <
                       std::tie(b.site, b.occurrence, b.kind, b.index);
              });
  }
  keyed.swap(bucketed);
  std::array<Lane, 32> lanes;
  for (std::size_t i = 0; i < keyed.size();) {
    std::size_t j = i;
    std::size_t n = 0;
    while (j < keyed.size() && keyed[j].warp == keyed[i].warp && keyed[j].site == keyed[i].site &&
           keyed[j].occurrence == keyed[i].occurrence && keyed[j].kind == keyed[i].kind) {
      if (n < lanes.size()) lanes[n++] = {addresses[keyed[j].index], bytes[keyed[j].index]};
      ++j;
    }
    visit(keyed.data() + i, keyed.data() + j, lanes.data(), n);
    i = j;
  }
}

// Occurrence numbers: how many times this thread already made an access at
// this site. `counters` is indexed [local site][thread].
void number_occurrences(std::vector<Keyed>& keyed, const std::vector<std::uint16_t>& threads,
                        unsigned threads_per_block) {
  std::vector<std::uint32_t> local_of;  // launch site id -> local index + 1
  std::vector<std::uint32_t> counters;
  for (Keyed& k : keyed) {
    if (local_of.size() <= k.site) local_of.resize(k.site + 1, 0);
    if (!local_of[k.site]) {
      local_of[k.site] = static_cast<std::uint32_t>(counters.size() / threads_per_block + 1);
      counters.resize(counters.size() + threads_per_block, 0);
    }
    k.occurrence = counters[(local_of[k.site] - 1) * threads_per_block + threads[k.index]]++;
  }
}

}  // namespace

void analyse_block(LaunchState& launch, std::uint32_t block_linear, std::vector<RawAccess>& raw,
                   unsigned threads_per_block) {
  if (raw.empty()) return;
  // Scratch reused from block to block by this worker.
  thread_local std::vector<Keyed> keyed;
  thread_local std::vector<std::uint16_t> threads;
  thread_local std::vector<std::uint64_t> addresses;
  thread_local std::vector<std::uint8_t> bytes;
  thread_local std::vector<SiteStats> stats;  // by launch site id
  const std::size_t n = raw.size();
  keyed.resize(n);
  threads.resize(n);
  addresses.resize(n);
  bytes.resize(n);

  std::vector<AccessRecord> records(n);
  {
    // A kernel has few sites: look them up in a small cache before the map.
    constexpr std::size_t kCache = 8;
    SiteKey cached_key[kCache];
    std::uint32_t cached_id[kCache];
    std::size_t cached = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const SiteKey key = SiteKey::of(raw[i].site);
      std::uint32_t id = 0;
      std::size_t c = 0;
      while (c < cached && !(cached_key[c] == key)) ++c;
      if (c < cached) {
        id = cached_id[c];
      } else {
        std::lock_guard lock(launch.mutex);
        id = launch.site_id(raw[i].site);
        if (cached < kCache) {
          cached_key[cached] = key;
          cached_id[cached++] = id;
        }
      }
      records[i] =
          AccessRecord{raw[i].address, block_linear, id, raw[i].thread, raw[i].bytes, raw[i].flags};
    }
  }
  std::uint32_t site_count = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    const AccessRecord& r = records[i];
    const std::uint8_t kind =
        static_cast<std::uint8_t>((r.is_write() ? 1 : 0) | (r.is_shared() ? 2 : 0));
    keyed[i] = Keyed{r.site, 0, static_cast<std::uint16_t>(r.warp()), kind, i};
    threads[i] = r.thread;
    addresses[i] = r.address;
    bytes[i] = r.bytes;
    site_count = std::max(site_count, r.site + 1);
  }
  number_occurrences(keyed, threads, threads_per_block);

  stats.assign(site_count, SiteStats{});
  for_each_request(keyed, addresses.data(), bytes.data(),
                   [&](const Keyed* first, const Keyed*, Lane* lanes, std::size_t count) {
                     const bool write = first->kind & 1, shared = first->kind & 2;
                     RequestShape s = shape_of(lanes, count, shared);
                     SiteStats& site = stats[first->site];
                     if (shared) {
                       add(write ? site.shared_stores : site.shared_loads, s);
                     } else {
                       add(write ? site.stores : site.loads, s);
                     }
                   });

  std::lock_guard lock(launch.mutex);
  for (std::uint32_t site = 0; site < site_count; ++site) {
    const SiteStats& s = stats[site];
    if (!s.loads.requests && !s.stores.requests && !s.shared_loads.requests &&
        !s.shared_stores.requests) {
      continue;
    }
    SiteStats& total = launch.stats[site];
    total.loads.merge(s.loads);
    total.stores.merge(s.stores);
    total.shared_loads.merge(s.shared_loads);
    total.shared_stores.merge(s.shared_stores);
  }
  launch.accesses_seen += n;
  if (launch.accesses_kept + n <= launch.options.max_recorded_accesses) {
    launch.accesses_kept += n;
    launch.traces.emplace_back(block_linear, std::move(records));
  }
}

std::vector<WarpRequest> rebuild_requests(const LaunchRecord& launch) {
  std::vector<WarpRequest> out;
  const unsigned threads_per_block = launch.block.x * launch.block.y * launch.block.z;
  const auto& all = launch.accesses;
  for (std::size_t begin = 0; begin < all.size();) {
    std::size_t end = begin;
    while (end < all.size() && all[end].block == all[begin].block) ++end;
    std::vector<Keyed> keyed;
    std::vector<std::uint16_t> threads(end - begin);
    std::vector<std::uint64_t> addresses(end - begin);
    std::vector<std::uint8_t> bytes(end - begin);
    for (std::size_t i = begin; i < end; ++i) {
      const AccessRecord& r = all[i];
      const auto local = static_cast<std::uint32_t>(i - begin);
      keyed.push_back(Keyed{
          r.site, 0, static_cast<std::uint16_t>(r.warp()),
          static_cast<std::uint8_t>((r.is_write() ? 1 : 0) | (r.is_shared() ? 2 : 0)), local});
      threads[local] = r.thread;
      addresses[local] = r.address;
      bytes[local] = r.bytes;
    }
    number_occurrences(keyed, threads, threads_per_block);
    for_each_request(keyed, addresses.data(), bytes.data(),
                     [&](const Keyed* first, const Keyed* last, Lane* lanes, std::size_t n) {
                       WarpRequest w;
                       w.block = all[begin].block;
                       w.warp = first->warp;
                       w.site = first->site;
                       w.occurrence = first->occurrence;
                       w.is_write = first->kind & 1;
                       w.is_shared = first->kind & 2;
                       w.bytes_per_lane = bytes[first->index];
                       for (const Keyed* k = first; k != last; ++k) {
                         const unsigned lane = threads[k->index] % 32;
                         w.active_mask |= 1u << lane;
                         w.addresses[lane] = addresses[k->index];
                       }
                       RequestShape s = shape_of(lanes, n, w.is_shared);
                       w.sectors = s.sectors;
                       w.lines = s.lines;
                       w.ways = s.ways;
                       out.push_back(w);
                     });
    begin = end;
  }
  return out;
}

}  // namespace cudalab::emu::detail

namespace cudalab::emu {
std::vector<WarpRequest> warp_requests(const LaunchRecord& launch) {
  return detail::rebuild_requests(launch);
}
}  // namespace cudalab::emu
