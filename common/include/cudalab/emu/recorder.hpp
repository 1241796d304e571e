// What the emulator saw: switches for the checks, the sanitizer-style
// reports, and a scoped Recording that keeps, for every launch made while it
// is alive, the traced accesses and the analyses derived from them
// (coverage, coalescing per warp request, shared-memory bank conflicts).
//
//   cudalab::emu::Recording rec;            // record the launches below
//   kernel<<<grid, block>>>(...);
//   EXPECT_TRUE(rec.clean()) << rec.reports_text();
//   const auto& launch = rec.last();
//   launch.coalescing.loads.sectors_per_request();   // 4.0 for a coalesced fp32 load
//   launch.coalescing.atomics.requests;               // atomics apart, as ncu counts them
//   auto cov = cudalab::emu::coverage(launch, d_out, sizeof(float), n);
//   cov.describe(17);   // "element 17 written 2 times: threads (0,1,0)/(5,0,0) ..."
//
// The checks run whether or not a Recording is alive; their reports go to
// stderr (Options::print_reports), into the Recording when there is one, and
// faults become the CUDA error of the next synchronising call (runtime.hpp).
#pragma once

#include <driver_types.h>
#include <vector_types.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace cudalab::emu {

namespace detail {
struct RecordingAccess;  // how the engine appends launches
}  // namespace detail

// ---- switches -----------------------------------------------------------------

// Each check can be turned off; the divergent-barrier, warp-collective and
// alignment checks are always on (without them a broken kernel would hang,
// or the emulator itself would crash on a misaligned vector access).
struct Checks {
  bool bounds = true;         // out of bounds, use after free, pointers to no allocation
  bool races = true;          // intra-block races and inter-block write-write races
  bool uninitialized = true;  // reads of device memory nothing wrote
};

struct Options {
  Checks checks;
  bool print_reports = true;                     // print each report to stderr when found
  std::size_t max_reports_per_launch = 100;      // later ones are counted, not kept
  std::size_t max_recorded_accesses = 1u << 22;  // per launch; analyses still see all
  unsigned workers = 0;  // host threads running blocks; 0: CUDALAB_EMU_WORKERS or all cores
  // The order queued stream work runs in: "fifo" (issue order), "adversarial"
  // (the latest issued ready operation first: consumers before producers
  // wherever nothing orders them) or a decimal seed (a random order, the
  // same for the same seed). Empty: CUDALAB_EMU_SCHEDULE, else adversarial.
  std::string schedule;
  // Virtual GPUs (cudaGetDeviceCount), 1 to 64. 0: CUDALAB_EMU_DEVICES, else 1.
  unsigned devices = 0;
};

Options options();
void set_options(const Options& options);

// Sets options for a scope (a test) and restores the previous ones.
class ScopedOptions {
 public:
  explicit ScopedOptions(const Options& options) : saved_(cudalab::emu::options()) {
    set_options(options);
  }
  ~ScopedOptions() { set_options(saved_); }
  ScopedOptions(const ScopedOptions&) = delete;
  ScopedOptions& operator=(const ScopedOptions&) = delete;

 private:
  Options saved_;
};

// ---- reports ----------------------------------------------------------------------

enum class ReportKind {
  out_of_bounds,          // access outside the allocation the pointer came from
  use_after_free,         // access to an allocation already cudaFree'd
  invalid_pointer,        // access through a pointer into no device allocation
  misaligned_address,     // address not a multiple of the access's alignment (16 for float4)
  intra_block_race,       // two threads of one block, same address, one barrier interval
  inter_block_race,       // two blocks wrote one global address without atomics
  uninitialized_read,     // read of device memory nothing wrote
  divergent_barrier,      // threads wait at a barrier others never reach
  warp_collective,        // a mask naming absent lanes, a shuffle reading an exited lane, ...
  kernel_exception,       // a C++ exception escaped the kernel
  shared_memory_limit,    // static shared memory over 48 KiB, or static + dynamic over the opt-in
                          // limit
  stream_race,            // two operations of different streams, same bytes, one writing, unordered
  stream_race_unchecked,  // an unordered pair of operations whose accesses were not all traced
  stream_use_after_free,  // a block used on one stream and freed by cudaFreeAsync on another,
                          // unordered
  peer_access,            // a kernel touched another device's memory without peer access enabled
  grid_sync,              // cooperative_groups::this_grid().sync() outside a cooperative launch
  constant_write,         // a kernel stored to a __constant__ variable (read-only in kernels)
  device_assert,          // assert() failed in a kernel (cudaErrorAssert, sticky until reset)
  mbarrier,               // an mbarrier phase that can never complete (a hang on a GPU), or
                          // an mbarrier used wrongly (before init, more arrivals than its count)
  tensor_map,             // a bulk tensor copy (TMA) with a tensor map cuTensorMapEncodeTiled did
                          // not make, of another rank, or with its box outside shared memory
};
const char* to_string(ReportKind kind);

struct ThreadId {
  dim3 block{0, 0, 0};
  dim3 thread{0, 0, 0};
  std::string to_string() const;  // "block (1,0,0) thread (5,0,0)"
};

struct Report {
  ReportKind kind = ReportKind::out_of_bounds;
  std::string kernel;            // the kernel; for a race between streams, the first operation
  std::string second_operation;  // a race between streams: the other operation
  ThreadId where;                // the thread that made the access / waits
  std::uintptr_t address = 0;    // 0 when not about an address
  std::size_t access_bytes = 0;
  bool is_write = false;
  std::uintptr_t allocation_base = 0;  // 0 when no allocation is involved
  std::size_t allocation_bytes = 0;
  std::string file;  // source line of the access or barrier
  unsigned line = 0;
  std::string message;  // one sentence naming the problem (other thread, offset, ...)

  // Several lines in the style of compute-sanitizer:
  //   ========= Out-of-bounds write of size 4 bytes
  //   =========     at scale_kernel  kernels.cuh:12
  //   =========     by block (3,0,0) thread (7,0,0)
  //   =========     address 0x... is 4 bytes after the end of allocation 0x... (400 bytes)
  std::string to_string() const;
};

// ---- trace ------------------------------------------------------------------------

// A source location that made traced accesses or barriers.
struct Site {
  std::uint32_t id = 0;
  std::string file;
  unsigned line = 0;
  unsigned column = 0;
  std::string function;
};

struct AccessRecord {
  std::uint64_t address = 0;
  std::uint32_t block = 0;   // linear block index (x fastest)
  std::uint32_t site = 0;    // LaunchRecord::sites[site]
  std::uint16_t thread = 0;  // linear thread index in its block (x fastest)
  std::uint8_t bytes = 0;
  std::uint8_t flags = 0;  // bit 0 read, 1 write, 2 atomic, 3 shared memory, 4 constant memory

  bool is_read() const { return flags & 1u; }
  bool is_write() const { return flags & 2u; }
  bool is_atomic() const { return flags & 4u; }
  bool is_shared() const { return flags & 8u; }
  bool is_constant() const { return flags & 16u; }  // a __constant__ variable read by name
  unsigned warp() const { return thread / 32u; }
  unsigned lane() const { return thread % 32u; }
};

// Sectors (32 B) and lines (128 B) moved per warp request. A request is the
// k-th execution of one source site by the lanes of one warp (the emulator
// does not run warps in lockstep; this is what a warp-wide load instruction
// is on a GPU). Loads, stores and atomics are counted apart, as ncu counts
// ld, st and atom/red requests apart.
struct SectorStats {
  std::uint64_t requests = 0;
  std::uint64_t sectors = 0;
  std::uint64_t lines = 0;
  std::uint64_t bytes_requested = 0;             // distinct bytes the lanes asked for
  std::vector<std::uint64_t> sectors_histogram;  // [k] = requests touching k sectors

  double sectors_per_request() const;
  double lines_per_request() const;
  double efficiency() const;  // bytes_requested / (32 * sectors)
  void merge(const SectorStats& other);
};
struct SiteCoalescing {
  std::uint32_t site = 0;
  SectorStats loads;
  SectorStats stores;
  SectorStats atomics;
};
struct Coalescing {
  SectorStats loads;  // global memory, whole kernel
  SectorStats stores;
  SectorStats atomics;  // atomicAdd & co: not in loads or stores
  std::vector<SiteCoalescing> per_site;
};

// Shared-memory bank conflicts of traced shared arrays: a request needs as
// many wavefronts ("ways") as the most distinct 4-byte words any one of the
// 32 banks holds among its lanes' addresses.
struct BankStats {
  std::uint64_t requests = 0;
  std::uint64_t wavefronts = 0;
  unsigned max_ways = 0;
  std::vector<std::uint64_t> ways_histogram;  // [w] = requests needing w wavefronts

  double ways_per_request() const;
  void merge(const BankStats& other);
};
struct SiteBanks {
  std::uint32_t site = 0;
  BankStats loads;
  BankStats stores;
  BankStats atomics;
};
struct BankConflicts {
  BankStats loads;
  BankStats stores;
  BankStats atomics;
  std::vector<SiteBanks> per_site;
};

// Reads of __constant__ variables: the constant cache serves one address
// per transaction, so a warp's request costs as many transactions as its
// lanes read distinct addresses (1 when all read the same element, 32 when
// every lane reads its own). The constant-cache analogue of sectors/request.
struct ConstantStats {
  std::uint64_t requests = 0;
  std::uint64_t transactions = 0;                     // distinct addresses, summed over requests
  std::vector<std::uint64_t> transactions_histogram;  // [k] = requests of k distinct addresses

  double transactions_per_request() const;
  void merge(const ConstantStats& other);
};
struct SiteConstant {
  std::uint32_t site = 0;
  ConstantStats loads;
};
struct ConstantCache {
  ConstantStats loads;  // whole kernel; neither in coalescing nor in bank_conflicts
  std::vector<SiteConstant> per_site;
};

// ---- async copies and mbarriers (Hopper) ---------------------------------------

// What a block did with its mbarriers and async copies, in the order the
// emulator ran it (one block's threads run one at a time, so this order is
// a real interleaving of them; the viewer's pipeline view draws it). Kept
// only while a Recording is alive.
enum class AsyncEventKind : std::uint8_t {
  barrier_init,    // `bytes`: the count of arrivals a phase needs
  arrive,          // `bytes`: transaction bytes announced with it (arrive.expect_tx)
  expect_tx,       // `bytes` announced
  complete_tx,     // `bytes` completed by mbarrier.complete_tx
  phase_complete,  // `phase` completed (its waiters run again)
  wait_begin,      // the thread parks until `phase` completes
  wait_end,        // it runs again: `phase` completed
  copy_issue,      // an async copy to shared memory (`copy` numbers it in the block)
  copy_land,       // its `bytes` land at `shared_offset`
};
const char* to_string(AsyncEventKind kind);

// The event's thread for what no thread did (copies landing, and the phase
// completions they bring, while every thread of the block waits).
inline constexpr std::uint16_t kNoThread = 0xffff;

struct AsyncEvent {
  std::uint32_t block = 0;  // linear block index
  std::uint32_t order = 0;  // its place among the block's async events
  AsyncEventKind kind = AsyncEventKind::arrive;
  std::uint16_t thread = kNoThread;
  std::int32_t barrier = -1;  // the block's barriers in order of first init; -1: none
  // The barrier's phase the event belongs to (completed phases before it);
  // a cuda::pipeline copy (barrier -1): its stage.
  std::uint64_t phase = 0;
  std::uint64_t bytes = 0;
  std::uint32_t copy = 0;           // copy_issue, copy_land
  std::uint32_t shared_offset = 0;  // copies: the destination, from the block's shared memory
  std::uint32_t site = 0;           // LaunchRecord::sites (init, arrive, waits, issue)
};

// A bulk tensor copy (TMA): the tensor map's box and where it went.
struct TmaCopyRecord {
  std::uint32_t block = 0;
  std::uint32_t order = 0;  // of its copy_issue (a load) among the block's async events
  std::uint16_t thread = 0;
  bool is_store = false;
  std::uint32_t copy = 0;  // a load: its copy_issue's number
  unsigned rank = 0;
  unsigned element_bytes = 0;
  unsigned swizzle_bytes = 0;          // 0 (none), 32, 64 or 128
  std::array<std::uint32_t, 5> box{};  // elements per dimension, dimension 0 first
  std::array<std::int32_t, 5> coordinates{};
  std::uint32_t shared_offset = 0;            // the box, from the block's shared memory
  std::vector<std::uint64_t> global_sectors;  // distinct 32-byte sectors (address / 32), sorted
};

struct AllocationInfo {
  std::uintptr_t base = 0;
  std::size_t bytes = 0;
  bool freed = false;
  int device = 0;  // the virtual device that owns it
};

struct LaunchRecord {
  std::uint64_t index = 0;  // position in the recording
  std::string kernel;       // demangled name, or its address
  dim3 grid;
  dim3 block;
  std::size_t shared_bytes = 0;
  std::vector<Site> sites;
  std::vector<AccessRecord> accesses;       // ordered by block, then program order per thread
  std::uint64_t accesses_seen = 0;          // all traced accesses, kept or not
  bool accesses_truncated = false;          // max_recorded_accesses cut `accesses`
  std::vector<AllocationInfo> allocations;  // device allocations alive during the launch
  std::vector<Report> reports;
  std::uint64_t reports_suppressed = 0;  // beyond max_reports_per_launch
  Coalescing coalescing;                 // computed over all accesses, not only kept ones
  BankConflicts bank_conflicts;
  ConstantCache constant_cache;           // reads of __constant__ variables
  std::vector<AsyncEvent> async_events;   // by block, then order
  std::vector<TmaCopyRecord> tma_copies;  // by block, then order
  cudaError_t error = cudaSuccess;        // the fault this launch raised, if any

  dim3 block_index(std::uint32_t linear) const;
  dim3 thread_index(std::uint32_t linear) const;
  const Site* find_site(std::uint32_t id) const;
};

// The lanes of one warp request, rebuilt from the kept accesses.
struct WarpRequest {
  std::uint32_t block = 0;
  std::uint32_t warp = 0;
  std::uint32_t site = 0;
  std::uint32_t occurrence = 0;  // k-th execution of the site by this warp
  bool is_write = false;         // a store, or an atomic
  bool is_atomic = false;        // an atomic (is_write is true too)
  bool is_shared = false;
  bool is_constant = false;  // a read of a __constant__ variable
  unsigned active_mask = 0;  // lanes that took part
  std::array<std::uint64_t, 32> addresses{};
  unsigned bytes_per_lane = 0;
  unsigned sectors = 0;             // global: distinct 32-byte sectors
  unsigned lines = 0;               // global: distinct 128-byte lines
  unsigned ways = 0;                // shared: bank-conflict ways
  unsigned constant_addresses = 0;  // constant: distinct addresses (transactions)
};
std::vector<WarpRequest> warp_requests(const LaunchRecord& launch);

// ---- coverage ---------------------------------------------------------------------

struct ElementCoverage {
  std::uint32_t writes = 0;
  std::array<ThreadId, 2> writers{};  // the first two writers (valid up to `writes`)
};
struct Coverage {
  std::vector<ElementCoverage> elements;
  bool complete = true;  // false when the launch's accesses were truncated

  std::size_t unwritten() const;      // elements written 0 times
  std::size_t written_twice() const;  // elements written more than once
  // "element 17 written 2 times: block (0,0,0) thread (1,0,0) / block (5,0,0) thread (0,0,0)"
  std::string describe(std::size_t element) const;
};
// How often each of `count` elements of `element_bytes` starting at `base`
// was written in `launch`, and by whom. A wide store (a float4) counts for
// every element it overlaps.
Coverage coverage(const LaunchRecord& launch, const void* base, std::size_t element_bytes,
                  std::size_t count);
// Adds the writes of one more launch to `coverage` (sized by its elements),
// for host code that writes one output with several kernels.
void add_coverage(Coverage& coverage, const LaunchRecord& launch, const void* base,
                  std::size_t element_bytes);

// ---- recording --------------------------------------------------------------------

// While alive, every launch is recorded. One at a time (a second throws
// std::logic_error). Not thread-safe: launch from one host thread.
class Recording {
 public:
  Recording();
  ~Recording();
  Recording(const Recording&) = delete;
  Recording& operator=(const Recording&) = delete;

  const std::vector<LaunchRecord>& launches() const;
  const LaunchRecord& last() const;     // throws std::logic_error when nothing was launched
  std::vector<Report> reports() const;  // the launches' reports, then the races between streams
  bool clean() const;                   // no report in any launch, no race between streams
  std::string reports_text() const;
  void clear();

 private:
  friend struct detail::RecordingAccess;
  std::vector<LaunchRecord> launches_;
  std::vector<Report>
      stream_reports_;  // races between streams: about two operations, not one launch
};

// True while a Recording is alive (code that would open one can leave the
// caller's in place instead).
bool recording_alive();

// ---- export -----------------------------------------------------------------------

// Bounds on the JSON export; see docs/emulator.md for the schema.
struct ExportLimits {
  std::size_t max_accesses = 200000;  // whole blocks are kept until this many accesses
  std::size_t max_reports = 100;
};
nlohmann::json to_json(const LaunchRecord& launch, const ExportLimits& limits = {});
nlohmann::json to_json(const Recording& recording, const ExportLimits& limits = {});

}  // namespace cudalab::emu
