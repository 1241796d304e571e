// Internal to the emulator library: the state shared by its source files.
// Nothing here is part of the public API (see common/include/cudalab/emu/).
#pragma once

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <source_location>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "cudalab/emu/recorder.hpp"
#include "cudalab/emu/thread_state.hpp"

namespace cudalab::emu {

// One cudaMalloc. Entries are never deleted (freed ones stay to recognise
// use after free); the memory and the shadows are released on cudaFree.
struct Allocation {
  std::uintptr_t base = 0;
  std::size_t bytes = 0;
  bool is_shared_space = false;  // the sentinel for traced shared memory
  std::atomic<bool> freed{false};
  std::unique_ptr<std::uint8_t[]> initialised;  // one byte per byte: written yet?
  // Per 4-byte word: (launch id << 40) | (block + 1) of the last plain
  // writer, for the inter-block write-write check. Made on first need.
  std::atomic<std::atomic<std::uint64_t>*> last_writer{nullptr};

  ~Allocation() { delete[] last_writer.load(); }
  std::atomic<std::uint64_t>* writer_shadow();
  void mark_initialised(std::uintptr_t address, std::size_t n) noexcept;
};

namespace detail {

// ---- allocations (allocations.cpp) ----
Allocation* allocate(std::size_t bytes);
bool release(void* base);  // false: not a live allocation
// The live allocation containing [p, p+bytes); nullptr if none.
Allocation* find_live(const void* p, std::size_t bytes) noexcept;
std::vector<AllocationInfo> live_allocations();

// ---- options and errors (runtime.cpp / recorder.cpp) ----
const Options& current_options() noexcept;
void set_pending_fault(cudaError_t error) noexcept;

// ---- kernel names (kernel_name.cpp) ----
std::string kernel_name(const void* kernel);

// A source_location reduced to what identifies it, usable as a map key.
struct SiteKey {
  const char* file;
  const char* function;
  std::uint32_t line;
  std::uint32_t column;
  static SiteKey of(const std::source_location& s) noexcept {
    return {s.file_name(), s.function_name(), s.line(), s.column()};
  }
  friend bool operator==(const SiteKey& a, const SiteKey& b) noexcept {
    return a.line == b.line && a.column == b.column && a.file == b.file && a.function == b.function;
  }
};
struct SiteKeyHash {
  std::size_t operator()(const SiteKey& k) const noexcept {
    return std::hash<const void*>()(k.file) ^ (std::size_t{k.line} << 20) ^ k.column;
  }
};

// The identity of a source_location object. libstdc++ keeps one pointer to
// a per-call-site constant, so equal bits mean the same site (equal sites may
// still differ in bits, across inline copies: compare SiteKeys for those).
inline std::uintptr_t site_bits(const std::source_location& s) noexcept {
  static_assert(sizeof(std::source_location) == sizeof(std::uintptr_t) &&
                std::is_trivially_copyable_v<std::source_location>);
  return std::bit_cast<std::uintptr_t>(s);
}

// An access as the block collects it, before sites get their launch ids.
struct RawAccess {
  std::uint64_t address;
  std::source_location site;
  std::uint16_t thread;
  std::uint8_t bytes;
  std::uint8_t flags;
};

struct SiteStats {
  SectorStats loads, stores, atomics;
  BankStats shared_loads, shared_stores, shared_atomics;
};

// Everything one launch shares between the workers running its blocks.
struct LaunchState {
  const void* kernel = nullptr;
  std::string name;
  dim3 grid, block;
  std::size_t shared_bytes = 0;
  void (*body)(void*) = nullptr;
  void* context = nullptr;
  std::uint64_t id = 0;  // process-wide launch counter (for the shadows)
  Options options;
  bool recording = false;  // a Recording is alive: trace and analyse
  std::uint64_t total_blocks = 0;
  unsigned threads_per_block = 0;

  std::mutex mutex;  // guards everything below
  std::vector<Report> reports;
  std::uint64_t reports_suppressed = 0;
  std::set<std::tuple<int, std::string, unsigned, unsigned>> reported;  // de-duplication
  cudaError_t error = cudaSuccess;
  std::vector<Site> sites;
  std::unordered_map<SiteKey, std::uint32_t, SiteKeyHash> site_ids;
  std::vector<std::pair<std::uint32_t, std::vector<AccessRecord>>> traces;  // per block
  std::uint64_t accesses_kept = 0;
  std::uint64_t accesses_seen = 0;
  std::unordered_map<std::uint32_t, SiteStats> stats;

  // Adds a report unless an equal one (kind, site) is already there.
  void report(Report r, cudaError_t fault, const std::source_location* site);
  std::uint32_t site_id(const std::source_location& s);
};

ThreadId thread_id_of(const BlockInfo& block, unsigned linear_thread);
std::string format_site(const std::source_location& s);

// Per-block race shadow entry for one 4-byte word (checks.cpp): the last
// writer and up to two distinct readers within the current barrier interval.
struct WordShadow {
  struct Access {
    std::uint16_t thread = 0;  // thread + 1; 0: none
    std::uint8_t mask = 0;     // bytes of the word it touched
    std::uint32_t warp_syncs = 0;
    std::source_location site;
  };
  std::uint32_t epoch = 0;
  Access writer;
  Access readers[2];
};

// Block-level analyses at the end of a block (analysis.cpp).
void analyse_block(LaunchState& launch, std::uint32_t block_linear,
                   std::vector<RawAccess>& accesses, unsigned threads_per_block);

}  // namespace detail
}  // namespace cudalab::emu
