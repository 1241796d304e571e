// The registry of device memory: every cudaMalloc, live or freed.
#include <cstdlib>
#include <cstring>
#include <map>
#include <shared_mutex>

#include "engine.hpp"

namespace cudalab::emu::detail {

namespace {

// Fresh device memory is filled with 0xff bytes (NaN as float, -1 as int) so
// that reading it before writing gives visibly wrong results, not zeros.
constexpr unsigned char kFreshMemoryByte = 0xff;
constexpr std::size_t kAlignment = 256;  // what cudaMalloc guarantees

struct Registry {
  std::shared_mutex mutex;
  std::map<std::uintptr_t, Allocation*> live;    // by base address
  std::vector<std::unique_ptr<Allocation>> all;  // never shrinks: freed entries stay
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

Allocation* allocate(std::size_t bytes) {
  const std::size_t rounded =
      (std::max<std::size_t>(bytes, 1) + kAlignment - 1) / kAlignment * kAlignment;
  void* memory = std::aligned_alloc(kAlignment, rounded);
  if (!memory) return nullptr;
  std::memset(memory, kFreshMemoryByte, rounded);
  auto a = std::make_unique<Allocation>();
  a->base = reinterpret_cast<std::uintptr_t>(memory);
  a->bytes = bytes;
  a->initialised = std::make_unique<std::uint8_t[]>(std::max<std::size_t>(bytes, 1));
  Registry& r = registry();
  std::unique_lock lock(r.mutex);
  Allocation* raw = a.get();
  r.live[raw->base] = raw;
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
  std::free(base);
  return true;
}

Allocation* find_live(const void* p, std::size_t bytes) noexcept {
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  Registry& r = registry();
  std::shared_lock lock(r.mutex);
  auto it = r.live.upper_bound(address);
  if (it == r.live.begin()) return nullptr;
  --it;
  Allocation* a = it->second;
  // A zero-byte allocation still owns its base address.
  if (address >= a->base && address + bytes <= a->base + std::max<std::size_t>(a->bytes, 1)) {
    return a;
  }
  return nullptr;
}

std::vector<AllocationInfo> live_allocations() {
  Registry& r = registry();
  std::shared_lock lock(r.mutex);
  std::vector<AllocationInfo> out;
  for (auto& [base, a] : r.live) out.push_back({a->base, a->bytes, false});
  return out;
}

}  // namespace cudalab::emu::detail
