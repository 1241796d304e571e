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

#include "cudalab/emu/access_hooks.hpp"
#include "cudalab/emu/recorder.hpp"
#include "cudalab/emu/thread_state.hpp"
#include "shadow_bytes.hpp"

namespace cudalab::emu {

// One cudaMalloc. Entries are never deleted (freed ones stay to recognise
// use after free); the memory and the shadows are released on cudaFree.
struct Allocation {
  std::uintptr_t base = 0;
  std::size_t bytes = 0;
  std::uintptr_t reserved_low = 0;  // red zone, memory, red zone (allocations.cpp)
  std::size_t reserved_bytes = 0;
  bool is_shared_space = false;  // the sentinel for traced shared memory
  // A test harness's guard bytes at either end (set_guard_bytes): kernels
  // may not touch them, host copies may.
  std::size_t guard_front = 0;
  std::size_t guard_back = 0;
  int device = 0;                 // the virtual device current when it was allocated
  bool is_constant_bank = false;  // a device's __constant__ variables (constant_memory.cpp)
  unsigned managed_flags = 0;     // cudaMallocManaged: cudaMemAttachGlobal or cudaMemAttachHost
  std::atomic<bool> freed{false};
  std::unique_ptr<std::uint8_t[]> initialised;  // one byte per byte: written yet?
  // Every byte written at once (a cudaMemset or cudaMemcpy of the whole
  // allocation, as test harnesses fill their inputs): then the per-byte
  // shadow is neither read nor written any more. Reset with `initialised`.
  std::atomic<bool> wholly_initialised{false};
  // Per 4-byte word: (launch id << 40) | (block + 1) of the last plain
  // writer, for the inter-block write-write check. Made on first need.
  std::atomic<std::atomic<std::uint64_t>*> last_writer{nullptr};

  ~Allocation() { delete[] last_writer.load(); }
  std::atomic<std::uint64_t>* writer_shadow() {
    std::atomic<std::uint64_t>* s = last_writer.load(std::memory_order_acquire);
    return s ? s : make_writer_shadow();
  }
  std::atomic<std::uint64_t>* make_writer_shadow();  // checks.cpp
  // Inline: every traced write calls it, mostly with a constant n of 1 to
  // 16, which is one store (shadow_bytes.hpp).
  void mark_initialised(std::uintptr_t address, std::size_t n) noexcept {
    std::uint8_t* const first = initialised.get();
    if (!first || wholly_initialised.load(std::memory_order_relaxed)) return;
    if (address == base && n >= bytes) {
      wholly_initialised.store(true, std::memory_order_relaxed);
      return;
    }
    detail::set_shadow_bytes(first + (address - base), n);
  }
  // Whether [address, address + n) was all written.
  bool is_initialised(std::uintptr_t address, std::size_t n) const noexcept {
    const std::uint8_t* const first = initialised.get();
    if (!first || wholly_initialised.load(std::memory_order_relaxed)) return true;
    return detail::shadow_bytes_set(first + (address - base), n);
  }
};

namespace detail {

class BlockRun;
class GridBarrier;
struct ClusterRun;

// ---- virtual devices (devices.cpp) ----
// Sets of devices are 64-bit masks (LaunchState::accessible_devices).
inline constexpr int kMaxDevices = 64;
// Options::devices, else CUDALAB_EMU_DEVICES, else 1 (at most kMaxDevices).
int device_count() noexcept;
// This host thread's device (cudaSetDevice; 0 until set).
int current_device() noexcept;
bool is_device(int device) noexcept;  // 0 <= device < device_count()
// The devices whose memory a kernel running on `device` may touch: its own
// and those it enabled peer access to (bit d: device d).
std::uint64_t accessible_devices(int device) noexcept;
// cudaDeviceReset of `device`: the peer access it enabled is gone.
void forget_peer_access(int device) noexcept;

// An address as reports print it: 0x7f12... (checks.cpp).
std::string hex(std::uintptr_t v);

// ---- allocations (allocations.cpp) ----
// Owned by `device`; -1: the current device.
Allocation* allocate(std::size_t bytes, int device = -1);
// The same on whole pages between pages of red zone, zero-filled (managed memory).
Allocation* allocate_page_aligned(std::size_t bytes, int device = -1);
bool release(void* base);  // false: not a live allocation
// Blocks of the stream-ordered pool (stream_allocator.cpp): cudaFreeAsync's
// block leaves the live set when the free runs (a kernel touching it then is
// a use after free) but keeps its memory for the pool; handed out again it
// is live, `bytes` long and unwritten.
void retire_to_pool(Allocation* a);
void revive_from_pool(Allocation* a, std::size_t bytes);
// The live allocation containing [p, p+bytes); nullptr if none.
Allocation* find_live(const void* p, std::size_t bytes) noexcept;
// The allocation, live or in the quarantine of freed memory, whose reserved
// range (red zones included) contains p; nullptr if none.
Allocation* find_span(const void* p) noexcept;
std::vector<AllocationInfo> live_allocations();
// Page-locked host memory (cudaMallocHost): async copies from or to it stay async.
void* allocate_pinned(std::size_t bytes);
bool release_pinned(void* base);  // false: not a live pinned allocation
// The caller's memory made page-locked (cudaHostRegister) and released
// again (cudaHostUnregister); each answers the runtime's error code.
cudaError_t register_pinned(void* base, std::size_t bytes);
cudaError_t unregister_pinned(void* base);
bool is_pinned(const void* p, std::size_t bytes) noexcept;

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

// Where an access or a report comes from, in one word: either a
// source_location (a barrier's or a collective's line: the pointer to its
// per-site constant, 8-aligned, so the low bit is 0) or the pc of an
// instrumented access (the hook's return address, stored shifted with the
// low bit set). A pc becomes file:line only when something is reported or
// exported (resolve()).
class SiteRef {
 public:
  SiteRef() noexcept = default;
  SiteRef(const std::source_location& s) noexcept : bits_(site_bits(s)) {}  // NOLINT: implicit
  static SiteRef at_pc(const void* pc) noexcept {
    SiteRef r;
    r.bits_ = (reinterpret_cast<std::uintptr_t>(pc) << 1) | 1u;
    return r;
  }
  bool is_pc() const noexcept { return bits_ & 1u; }
  const void* pc() const noexcept { return reinterpret_cast<const void*>(bits_ >> 1); }
  std::source_location location() const noexcept {
    return is_pc() ? std::source_location{} : std::bit_cast<std::source_location>(bits_);
  }
  std::uintptr_t bits() const noexcept { return bits_; }
  explicit operator bool() const noexcept { return bits_ != 0; }

 private:
  std::uintptr_t bits_ = 0;
};

// A site as a reader sees it: file, line, column, function.
struct ResolvedSite {
  std::string file;
  unsigned line = 0;
  unsigned column = 0;
  std::string function;
};
// For a pc: the symbolizer's answer for the call instruction (pc - 1).
ResolvedSite resolve(SiteRef site);

// An access as the block collects it, before sites get their launch ids.
struct RawAccess {
  std::uint64_t address;
  SiteRef site;
  std::uint16_t thread;
  std::uint8_t bytes;
  std::uint8_t flags;
};

struct SiteStats {
  SectorStats loads, stores, atomics;
  BankStats shared_loads, shared_stores, shared_atomics;
  ConstantStats constant_loads;
};

// Everything one launch shares between the workers running its blocks.
struct LaunchState {
  const void* kernel = nullptr;
  std::string name;
  dim3 grid, block;
  std::size_t shared_bytes = 0;
  void (*body)(void*) = nullptr;
  void* context = nullptr;
  std::size_t context_bytes = 0;         // the parameter block the kernel's threads copy from
  std::uint64_t id = 0;                  // process-wide launch counter (for the shadows)
  int device = 0;                        // the virtual device it runs on
  std::uint64_t accessible_devices = 1;  // whose memory it may touch (bit d: device d)
  Options options;
  bool recording = false;  // a Recording is alive: trace and analyse
  std::uint64_t total_blocks = 0;
  unsigned threads_per_block = 0;
  double start_us = 0;  // on the modelled clock (streams.hpp)
  // cudaLaunchCooperativeKernel: every block is live at once (one host thread
  // each) and grid.sync() waits at grid_barrier (grid_sync.cpp).
  bool cooperative = false;
  GridBarrier* grid_barrier = nullptr;
  // cudaLaunchKernelEx with cudaLaunchAttributeClusterDimension: the blocks
  // per cluster in each dimension (cluster.cpp runs a launch with more than one).
  dim3 cluster{1, 1, 1};
  std::atomic<std::uint64_t> longest_thread_ns{0};  // the slowest thread's modelled time

  std::mutex mutex;  // guards everything below
  std::vector<Report> reports;
  std::uint64_t reports_suppressed = 0;
  std::set<std::tuple<int, std::string, unsigned, unsigned>> reported;  // de-duplication
  cudaError_t error = cudaSuccess;
  std::vector<Site> sites;
  std::vector<SiteRef> site_refs;  // per site id; pc sites are resolved when the record is made
  std::unordered_map<SiteKey, std::uint32_t, SiteKeyHash> site_ids;
  std::unordered_map<std::uintptr_t, std::uint32_t> pc_site_ids;
  // Shared memory of the instrumented path (shared_memory.cpp), fixed per
  // launch in first-use order as the GPU fixes it at compile time in
  // declaration order: each static declaration's offset in the block's arena,
  // and where the dynamic part starts (16-byte aligned after the static
  // declarations placed before its first use, as on the GPU). Every
  // placement goes after everything placed before it, so the arena's used
  // part only grows: [0, shared_arena_end).
  std::vector<std::pair<const void*, std::uint32_t>> shared_layout;
  std::atomic<std::size_t> static_shared_bytes{0};  // the static declarations' bytes, with padding
  static constexpr std::size_t kDynamicNotPlaced = ~std::size_t{0};
  std::atomic<std::size_t> dynamic_shared_offset{kDynamicNotPlaced};
  std::atomic<std::size_t> shared_arena_end{0};
  std::vector<std::pair<std::uint32_t, std::vector<AccessRecord>>> traces;  // per block
  std::uint64_t accesses_kept = 0;
  std::uint64_t accesses_seen = 0;
  std::unordered_map<std::uint32_t, SiteStats> stats;
  std::vector<AsyncEvent> async_events;  // the blocks' (mbarrier.cpp), in the order they ended
  std::vector<TmaCopyRecord> tma_copies;

  // Adds a report unless an equal one (kind, site) is already there; fills
  // the report's file and line from `site` when it names one.
  void report(Report r, cudaError_t fault, SiteRef site);
  void report(Report r, cudaError_t fault, const std::source_location* site) {
    report(std::move(r), fault, site ? SiteRef(*site) : SiteRef());
  }
  std::uint32_t site_id(SiteRef s);
};

ThreadId thread_id_of(const BlockInfo& block, unsigned linear_thread);
std::string format_site(SiteRef s);
// The site a report should name for host work issued at `direct` (a launch's
// chevron, a runtime call's return address, or none): `direct` when it lies
// in a lab's code, else the innermost caller on this thread's stack that
// does (a harness helper launched the kernel for the student's function),
// else `direct` (lab_code_place.cpp).
SiteRef in_lab_code(SiteRef direct);

// True while the emulator checks an access (checks.cpp, hooks.cpp). An
// access its own code makes meanwhile is not the kernel's: a report's
// message built with an instrumented copy of a std::string function (a
// C++20 translation unit instantiates them, and the linker may keep that
// copy) would otherwise be checked, reported, and recurse.
extern __thread bool checking_an_access __attribute__((tls_model("initial-exec")));
class CheckingAnAccess {
 public:
  CheckingAnAccess() noexcept : saved_(checking_an_access) { checking_an_access = true; }
  ~CheckingAnAccess() { checking_an_access = saved_; }
  CheckingAnAccess(const CheckingAnAccess&) = delete;
  CheckingAnAccess& operator=(const CheckingAnAccess&) = delete;

 private:
  bool saved_;
};

// An access that instrumented kernel code makes through the emulator's own
// code (an mma.sync's fragments, warp_mma.cpp): what the hook of a `bytes`
// access at `address` would do, as if made at `pc` (a return address in the
// kernel). hooks.cpp.
void observe_access(const void* address, std::size_t bytes, unsigned flags, const void* pc);

bool on_access_at(const Allocation* allocation, const void* address, std::size_t bytes,
                  std::size_t alignment, unsigned flags, SiteRef site) noexcept;

// Shared memory (shared_memory.cpp). The static declarations of a block: at
// most 48 KiB, as on every GPU since Kepler; the dynamic part follows them.
inline constexpr std::size_t kStaticSharedLimit = 48 * 1024;
// Sizes the worker's arena for `launch`, points the block at it and poisons
// the part of it the launch has placed so far (contents 0xff, nothing
// written yet); what is placed later is poisoned at the block's first use.
void prepare_shared_arena(BlockRun& run, LaunchState& launch, std::vector<unsigned char>& arena,
                          std::vector<std::uint8_t>& written);
// The block's dynamic shared memory, placed at its first use in the launch
// (nullptr when the launch asked for none).
void* block_dynamic_shared(BlockRun& run) noexcept;

// cudaFuncAttributeMaxDynamicSharedMemorySize per kernel (48 KiB unless set).
cudaError_t set_max_dynamic_shared(const void* kernel, int bytes) noexcept;
std::size_t max_dynamic_shared_of(const void* kernel) noexcept;

// A kernel's access to a device's constant bank (constant_memory.cpp): a
// read is traced as constant memory, a store or a read outside every
// __constant__ variable is a report; false: the access must not happen.
bool constant_access(BlockRun& run, const Allocation& bank, const void* address, std::size_t bytes,
                     unsigned flags, SiteRef site);
// The fault of an earlier launch, returned once (runtime.cpp).
cudaError_t take_pending_fault() noexcept;

// Block-level analyses at the end of a block (analysis.cpp).
void analyse_block(LaunchState& launch, std::uint32_t block_linear,
                   std::vector<RawAccess>& accesses, unsigned threads_per_block);

}  // namespace detail
}  // namespace cudalab::emu
