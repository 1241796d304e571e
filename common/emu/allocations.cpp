// The registry of device memory: every cudaMalloc, live or freed; and the
// page-locked host memory of cudaMallocHost.
//
// Each allocation sits between two red zones (guard bytes that belong to no
// allocation), so that an instrumented `a[n]` just past the end is seen as
// out of bounds of `a` rather than as an access into a neighbour; and freed
// memory stays reserved in a quarantine for a while, so that a use after free
// is recognised as one instead of touching whatever cudaMalloc returned next.
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <deque>
#include <iterator>
#include <map>
#include <shared_mutex>

#include "engine.hpp"

namespace cudalab::emu::detail {

namespace {

// Fresh device memory is filled with 0xff bytes (NaN as float, -1 as int) so
// that reading it before writing gives visibly wrong results, not zeros.
constexpr unsigned char kFreshMemoryByte = 0xff;
constexpr std::size_t kAlignment = 256;  // what cudaMalloc guarantees
constexpr std::size_t kRedZone = 256;    // before and after each allocation
// Freed memory is returned to the host only when the quarantine holds more.
constexpr std::size_t kQuarantineBytes = std::size_t{256} << 20;

struct Registry {
  std::shared_mutex mutex;
  std::map<std::uintptr_t, Allocation*> live;   // by base address
  std::map<std::uintptr_t, Allocation*> spans;  // live and quarantined, by reserved start
  std::deque<Allocation*> quarantine;           // freed, oldest first
  std::size_t quarantined_bytes = 0;
  std::vector<std::unique_ptr<Allocation>> all;  // never shrinks: freed entries stay
};

Registry& registry() {
  static Registry r;
  return r;
}

// The allocation keyed at or below `address` in `by_start` (nullptr if none):
// the only one that can contain it, as the keyed ranges do not overlap.
Allocation* at_or_below(const std::map<std::uintptr_t, Allocation*>& by_start,
                        std::uintptr_t address) {
  auto it = by_start.upper_bound(address);
  return it == by_start.begin() ? nullptr : std::prev(it)->second;
}

}  // namespace

Allocation* allocate(std::size_t bytes, int device) {
  const std::size_t rounded =
      (std::max<std::size_t>(bytes, 1) + kAlignment - 1) / kAlignment * kAlignment;
  const std::size_t reserved = kRedZone + rounded + kRedZone;
  void* memory = std::aligned_alloc(kAlignment, reserved);
  if (!memory) return nullptr;
  std::memset(memory, kFreshMemoryByte, reserved);
  auto a = std::make_unique<Allocation>();
  a->reserved_low = reinterpret_cast<std::uintptr_t>(memory);
  a->reserved_bytes = reserved;
  a->base = a->reserved_low + kRedZone;
  a->bytes = bytes;
  a->device = device < 0 ? current_device() : device;
  a->initialised = std::make_unique<std::uint8_t[]>(std::max<std::size_t>(bytes, 1));
  Registry& r = registry();
  std::unique_lock lock(r.mutex);
  Allocation* raw = a.get();
  r.live[raw->base] = raw;
  r.spans[raw->reserved_low] = raw;
  r.all.push_back(std::move(a));
  return raw;
}

Allocation* allocate_page_aligned(std::size_t bytes, int device) {
  // Whole pages, and a page of red zone on either side, so that protecting
  // the allocation's pages touches nothing else.
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t rounded = (std::max<std::size_t>(bytes, 1) + page - 1) / page * page;
  const std::size_t reserved = page + rounded + page;
  void* memory = std::aligned_alloc(page, reserved);
  if (!memory) return nullptr;
  std::memset(memory, 0, reserved);
  auto a = std::make_unique<Allocation>();
  a->reserved_low = reinterpret_cast<std::uintptr_t>(memory);
  a->reserved_bytes = reserved;
  a->base = a->reserved_low + page;
  a->bytes = bytes;
  a->device = device < 0 ? current_device() : device;
  a->initialised = std::make_unique<std::uint8_t[]>(std::max<std::size_t>(bytes, 1));
  Registry& r = registry();
  std::unique_lock lock(r.mutex);
  Allocation* raw = a.get();
  r.live[raw->base] = raw;
  r.spans[raw->reserved_low] = raw;
  r.all.push_back(std::move(a));
  return raw;
}

bool release(void* base) {
  Registry& r = registry();
  std::unique_lock lock(r.mutex);
  auto it = r.live.find(reinterpret_cast<std::uintptr_t>(base));
  if (it == r.live.end()) return false;
  Allocation* a = it->second;
  r.live.erase(it);
  a->freed.store(true);
  a->initialised.reset();
  delete[] a->last_writer.exchange(nullptr);
  r.quarantine.push_back(a);
  r.quarantined_bytes += a->reserved_bytes;
  while (r.quarantined_bytes > kQuarantineBytes) {
    Allocation* oldest = r.quarantine.front();
    r.quarantine.pop_front();
    r.quarantined_bytes -= oldest->reserved_bytes;
    r.spans.erase(oldest->reserved_low);
    std::free(reinterpret_cast<void*>(oldest->reserved_low));
  }
  return true;
}

void retire_to_pool(Allocation* a) {
  Registry& r = registry();
  std::unique_lock lock(r.mutex);
  auto it = r.live.find(a->base);
  if (it != r.live.end() && it->second == a) r.live.erase(it);
  a->freed.store(true);
}

void revive_from_pool(Allocation* a, std::size_t bytes) {
  Registry& r = registry();
  std::unique_lock lock(r.mutex);
  a->bytes = bytes;
  a->guard_front = a->guard_back = 0;
  a->initialised = std::make_unique<std::uint8_t[]>(std::max<std::size_t>(bytes, 1));
  a->wholly_initialised.store(false);
  a->freed.store(false);
  r.live[a->base] = a;
}

Allocation* find_span(const void* p) noexcept {
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  Registry& r = registry();
  std::shared_lock lock(r.mutex);
  Allocation* a = at_or_below(r.spans, address);
  return a && address - a->reserved_low < a->reserved_bytes ? a : nullptr;
}

Allocation* find_live(const void* p, std::size_t bytes) noexcept {
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  Registry& r = registry();
  std::shared_lock lock(r.mutex);
  Allocation* a = at_or_below(r.live, address);
  // A zero-byte allocation still owns its base address.
  if (a && address >= a->base && address + bytes <= a->base + std::max<std::size_t>(a->bytes, 1)) {
    return a;
  }
  return nullptr;
}

std::vector<AllocationInfo> live_allocations() {
  Registry& r = registry();
  std::shared_lock lock(r.mutex);
  std::vector<AllocationInfo> out;
  for (auto& [base, a] : r.live) out.push_back({a->base, a->bytes, false, a->device});
  return out;
}

// ---- page-locked host memory ----------------------------------------------------------

namespace {
// A page-locked range: allocated here (cudaMallocHost, freed by
// cudaFreeHost) or the caller's memory registered (cudaHostRegister, ended
// by cudaHostUnregister; never freed here).
struct PinnedRange {
  std::size_t bytes;
  bool registered;
};
struct PinnedRegistry {
  std::shared_mutex mutex;
  std::map<std::uintptr_t, PinnedRange> live;  // base -> range
};
PinnedRegistry& pinned() {
  static PinnedRegistry r;
  return r;
}
// The live range containing `address`; end() if none. Caller holds the lock.
std::map<std::uintptr_t, PinnedRange>::iterator containing(PinnedRegistry& r,
                                                           std::uintptr_t address) {
  auto it = r.live.upper_bound(address);
  if (it == r.live.begin()) return r.live.end();
  --it;
  return address < it->first + it->second.bytes ? it : r.live.end();
}
}  // namespace

void* allocate_pinned(std::size_t bytes) {
  const std::size_t rounded =
      (std::max<std::size_t>(bytes, 1) + kAlignment - 1) / kAlignment * kAlignment;
  void* memory = std::aligned_alloc(kAlignment, rounded);
  if (!memory) return nullptr;
  PinnedRegistry& r = pinned();
  std::unique_lock lock(r.mutex);
  r.live[reinterpret_cast<std::uintptr_t>(memory)] = {std::max<std::size_t>(bytes, 1), false};
  return memory;
}

bool release_pinned(void* base) {
  PinnedRegistry& r = pinned();
  std::unique_lock lock(r.mutex);
  auto it = r.live.find(reinterpret_cast<std::uintptr_t>(base));
  if (it == r.live.end() || it->second.registered) return false;
  r.live.erase(it);
  std::free(base);
  return true;
}

cudaError_t register_pinned(void* base, std::size_t bytes) {
  const auto first = reinterpret_cast<std::uintptr_t>(base);
  PinnedRegistry& r = pinned();
  std::unique_lock lock(r.mutex);
  // Any overlap with a page-locked range is refused, as the driver does: a
  // registered one as already registered, cudaMallocHost's as an invalid
  // value (what an H100 answered, 2026-12-07).
  auto overlap = containing(r, first);
  if (overlap == r.live.end()) {
    auto next = r.live.lower_bound(first);
    if (next != r.live.end() && next->first < first + bytes) overlap = next;
  }
  if (overlap != r.live.end()) {
    return overlap->second.registered ? cudaErrorHostMemoryAlreadyRegistered
                                      : cudaErrorInvalidValue;
  }
  r.live[first] = {bytes, true};
  return cudaSuccess;
}

cudaError_t unregister_pinned(void* base) {
  PinnedRegistry& r = pinned();
  std::unique_lock lock(r.mutex);
  auto it = containing(r, reinterpret_cast<std::uintptr_t>(base));
  if (it != r.live.end() && !it->second.registered) return cudaErrorInvalidValue;
  if (it == r.live.end() || it->first != reinterpret_cast<std::uintptr_t>(base)) {
    return cudaErrorHostMemoryNotRegistered;
  }
  r.live.erase(it);
  return cudaSuccess;
}

bool is_pinned(const void* p, std::size_t bytes) noexcept {
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  PinnedRegistry& r = pinned();
  std::shared_lock lock(r.mutex);
  auto it = containing(r, address);
  return it != r.live.end() && address + bytes <= it->first + it->second.bytes;
}

}  // namespace cudalab::emu::detail
