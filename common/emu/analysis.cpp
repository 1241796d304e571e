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
  unsigned sectors = 0, lines = 0, ways = 0, constant_addresses = 0;
  std::uint64_t distinct_bytes = 0;
};

// Counts distinct units (sectors, lines, bytes) covered by intervals that
// arrive sorted by their start: each interval adds what lies past the
// furthest unit seen so far.
class UnitCounter {
 public:
  explicit UnitCounter(unsigned shift) : shift_(shift) {}
  void add(std::uint64_t begin, std::uint64_t end) {  // [begin, end), end > begin
    const std::uint64_t first = begin >> shift_, last = (end - 1) >> shift_;
    const std::uint64_t from = seen_ ? std::max(first, next_) : first;
    if (last >= from) count_ += last - from + 1;
    if (!seen_ || last + 1 > next_) next_ = last + 1;
    seen_ = true;
  }
  std::uint64_t count() const { return count_; }

 private:
  unsigned shift_;
  bool seen_ = false;
  std::uint64_t next_ = 0;  // first unit not yet counted
  std::uint64_t count_ = 0;
};

// Sectors, lines and distinct bytes of a global-memory request. Lanes come in
// lane order, so coalesced addresses need no sorting.
void global_shape(Lane* lanes, std::size_t n, RequestShape& s) {
  auto by_address = [](const Lane& a, const Lane& b) { return a.address < b.address; };
  if (!std::is_sorted(lanes, lanes + n, by_address)) std::sort(lanes, lanes + n, by_address);
  UnitCounter sectors(5), lines(7), bytes(0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t begin = lanes[i].address, end = begin + std::max(1u, lanes[i].bytes);
    sectors.add(begin, end);
    lines.add(begin, end);
    bytes.add(begin, end);
  }
  s.sectors = static_cast<unsigned>(sectors.count());
  s.lines = static_cast<unsigned>(lines.count());
  s.distinct_bytes = bytes.count();
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

// Transactions of a constant-cache request: one per distinct address.
unsigned distinct_addresses(const Lane* lanes, std::size_t n) {
  std::array<std::uint64_t, 32> seen;
  std::size_t count = 0;
  for (std::size_t i = 0; i < n && i < seen.size(); ++i) seen[count++] = lanes[i].address;
  std::sort(seen.begin(), seen.begin() + count);
  return static_cast<unsigned>(std::unique(seen.begin(), seen.begin() + count) - seen.begin());
}

RequestShape shape_of(Lane* lanes, std::size_t n, bool shared, bool constant = false) {
  RequestShape s;
  if (constant) {
    s.constant_addresses = distinct_addresses(lanes, n);
  } else if (shared) {
    s.ways = bank_ways(lanes, n);
  } else {
    global_shape(lanes, n, s);
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

void add(ConstantStats& stats, const RequestShape& r) {
  ++stats.requests;
  stats.transactions += r.constant_addresses;
  if (stats.transactions_histogram.size() <= r.constant_addresses) {
    stats.transactions_histogram.resize(r.constant_addresses + 1);
  }
  ++stats.transactions_histogram[r.constant_addresses];
}

void add(BankStats& stats, const RequestShape& r) {
  ++stats.requests;
  stats.wavefronts += r.ways;
  stats.max_ways = std::max(stats.max_ways, r.ways);
  if (stats.ways_histogram.size() <= r.ways) stats.ways_histogram.resize(r.ways + 1);
  ++stats.ways_histogram[r.ways];
}

// What a request is: a load, a store or an atomic (ncu counts the three
// apart), of global or shared memory.
enum RequestKind : std::uint8_t {
  kWriteBit = 1,
  kSharedBit = 2,
  kAtomicBit = 4,
  kConstantBit = 8,
  kKinds = 16
};

std::uint8_t request_kind(const AccessRecord& r) {
  return static_cast<std::uint8_t>(
      (r.is_write() ? kWriteBit : 0) | (r.is_shared() ? kSharedBit : 0) |
      (r.is_atomic() ? kAtomicBit : 0) | (r.is_constant() ? kConstantBit : 0));
}

// Groups accesses (already given launch site ids) into requests and calls
// `visit(first, last, lanes, n)` per request, in (warp, site, occurrence) order.
struct Keyed {
  std::uint32_t site;
  std::uint32_t occurrence;
  std::uint16_t warp;
  std::uint8_t kind;  // RequestKind bits
  std::uint32_t index;
};

template <class Visit>
void for_each_request(std::vector<Keyed>& keyed, const std::uint64_t* addresses,
                      const std::uint8_t* bytes, Visit visit) {
  // A counting sort on (warp, site, kind) keeps program order inside each
  // bucket; only buckets whose occurrences are out of order (loops) are then
  // sorted by occurrence, stably, so lanes stay in the order they ran.
  thread_local std::vector<Keyed> bucketed;
  thread_local std::vector<std::size_t> starts;
  thread_local std::vector<std::size_t> fill;
  std::uint32_t warps = 0, sites = 0;
  for (const Keyed& k : keyed) {
    warps = std::max<std::uint32_t>(warps, k.warp + 1u);
    sites = std::max<std::uint32_t>(sites, k.site + 1u);
  }
  auto bucket_of = [&](const Keyed& k) {
    return (static_cast<std::size_t>(k.warp) * sites + k.site) * kKinds + k.kind;
  };
  const std::size_t buckets = static_cast<std::size_t>(warps) * sites * kKinds;
  starts.assign(buckets + 1, 0);
  for (const Keyed& k : keyed) ++starts[bucket_of(k) + 1];
  for (std::size_t b = 0; b < buckets; ++b) starts[b + 1] += starts[b];
  bucketed.resize(keyed.size());
  fill.assign(starts.begin(), starts.end() - 1);
  for (const Keyed& k : keyed) bucketed[fill[bucket_of(k)]++] = k;
  auto by_occurrence = [](const Keyed& a, const Keyed& b) { return a.occurrence < b.occurrence; };
  for (std::size_t b = 0; b < buckets; ++b) {
    auto first = bucketed.begin() + static_cast<std::ptrdiff_t>(starts[b]);
    auto last = bucketed.begin() + static_cast<std::ptrdiff_t>(starts[b + 1]);
    if (!std::is_sorted(first, last, by_occurrence)) std::stable_sort(first, last, by_occurrence);
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
    std::uintptr_t cached_bits[kCache];
    std::uint32_t cached_id[kCache];
    std::size_t cached = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uintptr_t bits = raw[i].site.bits();
      std::uint32_t id = 0;
      std::size_t c = 0;
      while (c < cached && cached_bits[c] != bits) ++c;
      if (c < cached) {
        id = cached_id[c];
      } else {
        std::lock_guard lock(launch.mutex);
        id = launch.site_id(raw[i].site);
        if (cached < kCache) {
          cached_bits[cached] = bits;
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
    keyed[i] = Keyed{r.site, 0, static_cast<std::uint16_t>(r.warp()), request_kind(r), i};
    threads[i] = r.thread;
    addresses[i] = r.address;
    bytes[i] = r.bytes;
    site_count = std::max(site_count, r.site + 1);
  }
  number_occurrences(keyed, threads, threads_per_block);

  stats.assign(site_count, SiteStats{});
  for_each_request(
      keyed, addresses.data(), bytes.data(),
      [&](const Keyed* first, const Keyed*, Lane* lanes, std::size_t count) {
        const bool write = first->kind & kWriteBit;
        const bool shared = first->kind & kSharedBit;
        const bool atomic = first->kind & kAtomicBit;
        const bool constant = first->kind & kConstantBit;
        RequestShape s = shape_of(lanes, count, shared, constant);
        SiteStats& site = stats[first->site];
        if (constant) {
          add(site.constant_loads, s);
        } else if (shared) {
          add(atomic ? site.shared_atomics : write ? site.shared_stores : site.shared_loads, s);
        } else {
          add(atomic ? site.atomics : write ? site.stores : site.loads, s);
        }
      });

  std::lock_guard lock(launch.mutex);
  for (std::uint32_t site = 0; site < site_count; ++site) {
    const SiteStats& s = stats[site];
    if (!s.loads.requests && !s.stores.requests && !s.atomics.requests &&
        !s.shared_loads.requests && !s.shared_stores.requests && !s.shared_atomics.requests &&
        !s.constant_loads.requests) {
      continue;
    }
    SiteStats& total = launch.stats[site];
    total.loads.merge(s.loads);
    total.stores.merge(s.stores);
    total.atomics.merge(s.atomics);
    total.shared_loads.merge(s.shared_loads);
    total.shared_stores.merge(s.shared_stores);
    total.shared_atomics.merge(s.shared_atomics);
    total.constant_loads.merge(s.constant_loads);
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
      keyed.push_back(
          Keyed{r.site, 0, static_cast<std::uint16_t>(r.warp()), request_kind(r), local});
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
                       w.is_write = first->kind & kWriteBit;
                       w.is_atomic = first->kind & kAtomicBit;
                       w.is_shared = first->kind & kSharedBit;
                       w.is_constant = first->kind & kConstantBit;
                       w.bytes_per_lane = bytes[first->index];
                       for (const Keyed* k = first; k != last; ++k) {
                         const unsigned lane = threads[k->index] % 32;
                         w.active_mask |= 1u << lane;
                         w.addresses[lane] = addresses[k->index];
                       }
                       RequestShape s = shape_of(lanes, n, w.is_shared, w.is_constant);
                       w.constant_addresses = s.constant_addresses;
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
double ConstantStats::transactions_per_request() const {
  return requests ? static_cast<double>(transactions) / static_cast<double>(requests) : 0.0;
}
void ConstantStats::merge(const ConstantStats& other) {
  requests += other.requests;
  transactions += other.transactions;
  if (transactions_histogram.size() < other.transactions_histogram.size()) {
    transactions_histogram.resize(other.transactions_histogram.size());
  }
  for (std::size_t k = 0; k < other.transactions_histogram.size(); ++k) {
    transactions_histogram[k] += other.transactions_histogram[k];
  }
}
std::vector<WarpRequest> warp_requests(const LaunchRecord& launch) {
  return detail::rebuild_requests(launch);
}
}  // namespace cudalab::emu
